//! The inode table: the numbers the kernel knows our files by, each with
//! its path under SRC and how many lookups the kernel holds on it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The root's number (FUSE's).
pub(crate) const ROOT: u64 = 1;

#[derive(Debug)]
struct Node {
    /// Its path relative to SRC; `None` once it was removed or replaced
    /// by a rename (the kernel may still hold it, open).
    path: Option<PathBuf>,
    lookups: u64,
}

/// Inodes by number, and the number of each live path.
#[derive(Debug)]
pub(crate) struct Inodes {
    nodes: HashMap<u64, Node>,
    by_path: HashMap<PathBuf, u64>,
    next: u64,
}

impl Default for Inodes {
    fn default() -> Self {
        let mut nodes = HashMap::new();
        nodes.insert(
            ROOT,
            Node {
                path: Some(PathBuf::new()),
                lookups: 1,
            },
        );
        let mut by_path = HashMap::new();
        by_path.insert(PathBuf::new(), ROOT);
        Inodes {
            nodes,
            by_path,
            next: ROOT + 1,
        }
    }
}

impl Inodes {
    /// The path of inode `ino`, if it still has one.
    pub(crate) fn path(&self, ino: u64) -> Option<&Path> {
        self.nodes.get(&ino)?.path.as_deref()
    }

    /// The path of `name` in folder `parent`.
    pub(crate) fn child(&self, parent: u64, name: &std::ffi::OsStr) -> Option<PathBuf> {
        let dir = self.path(parent)?;
        // A name with a slash (or `.`/`..`) never comes from the kernel;
        // refused all the same, so no path leaves its folder.
        let bytes = std::os::unix::ffi::OsStrExt::as_bytes(name);
        if bytes.is_empty() || bytes.contains(&b'/') || bytes == b"." || bytes == b".." {
            return None;
        }
        Some(dir.join(name))
    }

    /// The kernel looked `path` up once more: its number (new if unknown).
    pub(crate) fn remember(&mut self, path: PathBuf) -> u64 {
        if let Some(&ino) = self.by_path.get(&path) {
            if let Some(n) = self.nodes.get_mut(&ino) {
                n.lookups += 1;
                return ino;
            }
        }
        let ino = self.next;
        self.next += 1;
        self.by_path.insert(path.clone(), ino);
        self.nodes.insert(
            ino,
            Node {
                path: Some(path),
                lookups: 1,
            },
        );
        ino
    }

    /// The number of a path already known, if any (no lookup counted).
    #[cfg(test)]
    pub(crate) fn known(&self, path: &Path) -> Option<u64> {
        self.by_path.get(path).copied()
    }

    /// The kernel dropped `n` lookups of `ino`.
    pub(crate) fn forget(&mut self, ino: u64, n: u64) {
        if ino == ROOT {
            return;
        }
        let Some(node) = self.nodes.get_mut(&ino) else {
            return;
        };
        node.lookups = node.lookups.saturating_sub(n);
        if node.lookups == 0 {
            if let Some(p) = self.nodes.remove(&ino).and_then(|n| n.path) {
                if self.by_path.get(&p) == Some(&ino) {
                    self.by_path.remove(&p);
                }
            }
        }
    }

    /// `path` was removed: its inode keeps its number, loses its path.
    pub(crate) fn removed(&mut self, path: &Path) {
        if let Some(ino) = self.by_path.remove(path) {
            if let Some(n) = self.nodes.get_mut(&ino) {
                n.path = None;
            }
        }
    }

    /// `from` was renamed to `to`: it and everything below it move; what
    /// `to` named before is gone.
    pub(crate) fn renamed(&mut self, from: &Path, to: &Path) {
        self.removed(to);
        self.renamed_keeping(from, to);
    }

    /// `a` and `b` swapped places (`RENAME_EXCHANGE`).
    pub(crate) fn exchanged(&mut self, a: &Path, b: &Path) {
        let tmp = PathBuf::from("\0swap");
        self.renamed_keeping(a, &tmp);
        self.renamed_keeping(b, a);
        self.renamed_keeping(&tmp, b);
    }

    /// Move `from` and everything below it to `to`.
    fn renamed_keeping(&mut self, from: &Path, to: &Path) {
        let moved: Vec<(PathBuf, u64)> = self
            .by_path
            .iter()
            .filter(|(p, _)| p.starts_with(from))
            .map(|(p, &i)| (p.clone(), i))
            .collect();
        for (old, ino) in moved {
            self.by_path.remove(&old);
            let rest = old.strip_prefix(from).unwrap_or(Path::new(""));
            let new = if rest.as_os_str().is_empty() {
                to.to_path_buf()
            } else {
                to.join(rest)
            };
            self.by_path.insert(new.clone(), ino);
            if let Some(n) = self.nodes.get_mut(&ino) {
                n.path = Some(new);
            }
        }
    }

    /// Inodes the kernel holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renamed_folder_takes_its_children_and_replaces_the_target() {
        let mut t = Inodes::default();
        let d = t.remember("d".into());
        let f = t.remember("d/f".into());
        let other = t.remember("e".into());
        t.renamed(Path::new("d"), Path::new("e"));
        assert_eq!(t.path(d), Some(Path::new("e")));
        assert_eq!(t.path(f), Some(Path::new("e/f")));
        assert_eq!(t.path(other), None, "the replaced inode has no path");
        assert_eq!(t.known(Path::new("e/f")), Some(f));
        assert_eq!(t.known(Path::new("d/f")), None);
        // A sibling whose name only starts the same is not moved.
        let g = t.remember("ee".into());
        t.renamed(Path::new("e"), Path::new("x"));
        assert_eq!(t.path(g), Some(Path::new("ee")));
    }

    #[test]
    fn forgetting_every_lookup_drops_the_inode_but_never_the_root() {
        let mut t = Inodes::default();
        let a = t.remember("a".into());
        assert_eq!(t.remember("a".into()), a);
        t.forget(a, 1);
        assert_eq!(t.path(a), Some(Path::new("a")));
        t.forget(a, 1);
        assert_eq!(t.path(a), None);
        t.forget(ROOT, 100);
        assert_eq!(t.path(ROOT), Some(Path::new("")));
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn names_that_would_leave_their_folder_are_refused() {
        let t = Inodes::default();
        for bad in ["", ".", "..", "a/b"] {
            assert_eq!(t.child(ROOT, bad.as_ref()), None, "{bad:?}");
        }
        assert_eq!(t.child(ROOT, "a".as_ref()), Some(PathBuf::from("a")));
    }

    #[test]
    fn exchange_swaps_two_paths() {
        let mut t = Inodes::default();
        let a = t.remember("a".into());
        let b = t.remember("b".into());
        let ac = t.remember("a/c".into());
        t.exchanged(Path::new("a"), Path::new("b"));
        assert_eq!(t.path(a), Some(Path::new("b")));
        assert_eq!(t.path(b), Some(Path::new("a")));
        assert_eq!(t.path(ac), Some(Path::new("b/c")));
    }
}
