//! A parameter's type as the type of a local of the generated code.

use syn::visit_mut::{self, VisitMut};
use syn::{Ident, Lifetime, Type};

/// A parameter's type as the type of a local: every lifetime becomes `'_` (the method's own
/// lifetimes are not in scope there). `impl Trait` is rejected: it makes the method generic.
pub(super) fn local_type(ty: &Type, method_name: &str) -> syn::Result<Type> {
    /// Rewrites every lifetime of a type to `'_` and records the first `impl Trait` in it.
    struct Elide<'a> {
        /// The error for the first `impl Trait`, if any.
        error: Option<syn::Error>,
        /// The method's name, for the message.
        method_name: &'a str,
    }
    impl VisitMut for Elide<'_> {
        fn visit_lifetime_mut(&mut self, lifetime: &mut Lifetime) {
            lifetime.ident = Ident::new("_", lifetime.ident.span());
        }
        fn visit_type_mut(&mut self, ty: &mut Type) {
            if let Type::ImplTrait(impl_trait) = ty {
                if self.error.is_none() {
                    self.error = Some(syn::Error::new_spanned(
                        &*impl_trait,
                        format!(
                            "`#[invoke]` does not support generic methods (`impl Trait` parameters): an invocation \
                             calls `{}` with fixed argument values, so every type must be known; add a non-generic \
                             method with concrete types that calls it, and mark that one `#[invoke]`",
                            self.method_name
                        ),
                    ));
                }
                return;
            }
            visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut ty = ty.clone();
    let mut elide = Elide {
        error: None,
        method_name,
    };
    elide.visit_type_mut(&mut ty);
    match elide.error {
        Some(error) => Err(error),
        None => Ok(ty),
    }
}
