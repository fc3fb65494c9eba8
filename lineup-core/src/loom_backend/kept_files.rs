//! Where the loom backend keeps files that outlive a check (the stored path of a violating
//! execution, which `LOOM_CHECKPOINT_FILE` replays): `lineup-loom/` in cargo's target directory,
//! never the current directory.

use std::path::{Path, PathBuf};

/// The directory for kept files: `<target>/lineup-loom`, where `<target>` is the cargo target
/// directory that holds the running executable (test binaries live in `<target>/<profile>/deps`,
/// examples in `<target>/<profile>/examples`; cargo marks `<target>` with `CACHEDIR.TAG`), else
/// `cargo_target_dir` (an absolute `CARGO_TARGET_DIR`, see
/// [`HostSettings::cargo_target_dir`](crate::environment::HostSettings::cargo_target_dir)), else
/// the system's temporary directory.
pub(crate) fn kept_files_dir(cargo_target_dir: Option<&Path>) -> PathBuf {
    let exe = std::env::current_exe().ok();
    let target = exe
        .as_deref()
        .and_then(target_dir_of)
        .or_else(|| cargo_target_dir.map(Path::to_path_buf))
        .unwrap_or_else(std::env::temp_dir);
    target.join("lineup-loom")
}

/// The cargo target directory that holds `exe`: its nearest ancestor with a `CACHEDIR.TAG`.
fn target_dir_of(exe: &Path) -> Option<PathBuf> {
    exe.ancestors()
        .skip(1)
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_dir_is_the_ancestor_cargo_marked() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("custom-target");
        let deps = target.join("release").join("deps");
        std::fs::create_dir_all(&deps).unwrap();
        std::fs::write(
            target.join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55",
        )
        .unwrap();
        assert_eq!(target_dir_of(&deps.join("my_test-0123")), Some(target));
        assert_eq!(target_dir_of(&root.path().join("elsewhere").join("bin")), None);
    }

    #[test]
    fn kept_files_never_go_to_the_current_directory() {
        let dir = kept_files_dir(None);
        assert!(dir.is_absolute(), "{}", dir.display());
        assert!(dir.ends_with("lineup-loom"));
        // The running test binary is in this workspace's target directory.
        assert!(
            dir.parent().unwrap().join("CACHEDIR.TAG").is_file(),
            "{}",
            dir.display()
        );
    }
}
