//! Where a write really lands, and whether that is inside the scope it was asked for.
//!
//! A project's files (`.claude/settings.json`, `.amplifier/hooks/…`) come with its repository,
//! symlinks included, so a write there is checked where it would land: the path with every
//! symlink on the way resolved, a missing file or folder placed in its parent's real folder, a
//! symlink to nothing followed to where it points. Landing outside the project is refused — Claude
//! Code refuses to write project settings through a symlink too — while the user's own files
//! (`--scope user`, `--user`) are written through their symlinks wherever they lead: the
//! documented dotfiles case, and the user's own choice.

use std::io;
use std::path::{Path, PathBuf};

/// Symlinks followed before a path counts as a loop (Linux's own limit).
const MAX_HOPS: u32 = 40;

/// Whose files a command writes.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    /// The user's own files: symlinks are followed wherever they lead.
    User,
    /// A project's files: every write must land inside this folder.
    Project(&'a Path),
}

/// A project-scope write refused, or a path that could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ScopeError {
    #[error(
        "{}: a write there would land in {}, outside the project {} (a symlink leads out); hookbridge writes a project's files only inside the project, and nothing was changed",
        file.display(),
        lands.display(),
        project.display()
    )]
    Outside {
        file: PathBuf,
        lands: PathBuf,
        project: PathBuf,
    },
    #[error("{}: cannot tell where a write there would land: {source}", path.display())]
    Unresolved {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl Scope<'_> {
    /// Where a write to `file` lands, checked against this scope.
    pub fn check(self, file: &Path) -> Result<PathBuf, ScopeError> {
        let lands = landing_place(file).map_err(|source| ScopeError::Unresolved {
            path: file.to_path_buf(),
            source,
        })?;
        let Scope::Project(project) = self else {
            return Ok(lands);
        };
        let root = landing_place(project).map_err(|source| ScopeError::Unresolved {
            path: project.to_path_buf(),
            source,
        })?;
        if lands.starts_with(&root) {
            Ok(lands)
        } else {
            Err(ScopeError::Outside {
                file: file.to_path_buf(),
                lands,
                project: root,
            })
        }
    }
}

/// Where a write to `path` lands: `path` with every symlink resolved. What does not exist lands
/// in its parent's real folder; a symlink to nothing is followed to where it points.
pub fn landing_place(path: &Path) -> io::Result<PathBuf> {
    resolve(path, 0)
}

fn resolve(path: &Path, hops: u32) -> io::Result<PathBuf> {
    if hops > MAX_HOPS {
        return Err(io::Error::other("too many levels of symbolic links"));
    }
    match std::fs::canonicalize(path) {
        Ok(real) => return Ok(real),
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        Err(_) => {}
    }
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file or directory"))?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let parent = resolve(parent, hops)?;
    match std::fs::read_link(path) {
        // A symlink to nothing: a write that follows it creates its target.
        Ok(target) => resolve(&parent.join(target), hops + 1),
        Err(_) => Ok(parent.join(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_write_lands_where_the_links_lead() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let project = root.join("project");
        let outside = root.join("outside");
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let inside = Scope::Project(&project);

        // Plain paths, existing or not, land where they say.
        let file = project.join(".claude/settings.json");
        assert_eq!(inside.check(&file).unwrap(), file);
        let deep = project.join(".amplifier/hooks/from-claude/hooks.json");
        assert_eq!(inside.check(&deep).unwrap(), deep);

        // A linked file, a linked folder on the way, a link to nothing: all land outside.
        symlink(outside.join("config.json"), &file).unwrap();
        assert!(matches!(inside.check(&file), Err(ScopeError::Outside { .. })));
        std::fs::write(outside.join("config.json"), "{}").unwrap();
        assert!(matches!(inside.check(&file), Err(ScopeError::Outside { .. })));
        std::fs::create_dir_all(project.join(".amplifier")).unwrap();
        symlink(&outside, project.join(".amplifier/hooks")).unwrap();
        let err = inside.check(&deep).unwrap_err().to_string();
        assert!(
            err.contains(&outside.join("from-claude/hooks.json").display().to_string()),
            "{err}"
        );
        assert!(err.contains("nothing was changed"), "{err}");

        // A link that stays inside is fine, and the user's own files follow any link.
        symlink("settings.json", project.join(".claude/settings.local.json")).unwrap();
        std::fs::remove_file(&file).unwrap();
        std::fs::write(&file, "{}").unwrap();
        assert_eq!(
            inside
                .check(&project.join(".claude/settings.local.json"))
                .unwrap(),
            file
        );
        assert_eq!(
            Scope::User.check(&deep).unwrap(),
            outside.join("from-claude/hooks.json")
        );

        // A loop is an error, not a hang.
        symlink(root.join("b"), root.join("a")).unwrap();
        symlink(root.join("a"), root.join("b")).unwrap();
        assert!(matches!(
            Scope::User.check(&root.join("a")),
            Err(ScopeError::Unresolved { .. })
        ));
    }
}
