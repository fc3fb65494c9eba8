//! A parameter's type as the type of a local of the generated code.

use syn::visit_mut::{self, VisitMut};
use syn::{Ident, Lifetime, Type};

/// A parameter's type as the type of a local: every lifetime becomes `'_` (the method's own
/// lifetimes are not in scope there). `impl Trait` is rejected: it makes the method generic.
pub(super) fn local_type(ty: &Type, method_name: &str) -> syn::Result<Type> {
    struct Elide(Option<syn::Error>, String);
    impl VisitMut for Elide {
        fn visit_lifetime_mut(&mut self, lifetime: &mut Lifetime) {
            lifetime.ident = Ident::new("_", lifetime.ident.span());
        }
        fn visit_type_mut(&mut self, ty: &mut Type) {
            if let Type::ImplTrait(impl_trait) = ty {
                if self.0.is_none() {
                    self.0 = Some(syn::Error::new_spanned(
                        &*impl_trait,
                        format!(
                            "`#[invoke]` does not support generic methods (`impl Trait` parameters): an invocation \
                             calls `{}` with fixed argument values, so every type must be known; add a non-generic \
                             method with concrete types that calls it, and mark that one `#[invoke]`",
                            self.1
                        ),
                    ));
                }
                return;
            }
            visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut ty = ty.clone();
    let mut elide = Elide(None, method_name.to_string());
    elide.visit_type_mut(&mut ty);
    match elide.0 {
        Some(error) => Err(error),
        None => Ok(ty),
    }
}
