use std::fs;

use super::*;

fn line(l: &Line) -> String {
    serde_json::to_string(l).unwrap() + "\n"
}

/// A journal as a run that died leaves it: nobody holds its lock.
fn dead_journal(dir: &Path, lines: &[Line]) -> PathBuf {
    dead_journal_named(dir, "run-999999-0.journal", lines)
}

/// [`dead_journal`] under the file name `name` (journals are cleaned in
/// name order).
fn dead_journal_named(dir: &Path, name: &str, lines: &[Line]) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, lines.iter().map(line).collect::<String>()).unwrap();
    path
}

/// A dead run's journal in `dir` with the lines `text` (as an older sluice
/// may have written them).
fn dead_journal_text(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("run-999999-0.journal");
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn changes_marked_undone_are_not_pending() {
    let text = [
        Line::Begin {
            pid: 7,
            command: "run".into(),
        },
        Line::Change {
            at: 0,
            id: 1,
            change: Change::Cgroup { path: "/a".into() },
        },
        Line::Change {
            at: 0,
            id: 2,
            change: Change::Cgroup { path: "/b".into() },
        },
        Line::Undone { id: 1 },
    ]
    .iter()
    .map(line)
    .collect::<String>()
        + "{\"change\":{\"id\":3,\"cha"; // cut short by the kill
    let (who, pending) = pending(&text);
    assert_eq!(who, Some((7, "run".to_string())));
    let pending: Vec<Change> = pending.into_iter().map(|p| p.change).collect();
    assert_eq!(pending, vec![Change::Cgroup { path: "/b".into() }]);
}

#[test]
fn clean_undoes_what_a_dead_run_left_newest_first() {
    let state = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let folder = work.path().join("sluice-run-1-0");
    fs::create_dir(&folder).unwrap();
    fs::write(folder.join("data"), b"x").unwrap();
    let file = work.path().join("sluice-00000-a.dat");
    let made = sluice_input::create_new(&file, 0o600).unwrap();
    // A "sysfs" setting the run changed, and one someone changed since.
    let ours = work.path().join("scheduler");
    fs::write(&ours, "none mq-deadline [bfq]\n").unwrap();
    let theirs = work.path().join("other");
    fs::write(&theirs, "none [kyber] bfq\n").unwrap();
    let j = dead_journal(
        state.path(),
        &[
            Line::Begin {
                pid: 999999,
                command: "kernel".into(),
            },
            Line::Change {
                at: 0,
                id: 1,
                change: Change::Setting {
                    file: ours.clone(),
                    before: "none".into(),
                    set: "bfq".into(),
                },
            },
            Line::Change {
                at: 0,
                id: 2,
                change: Change::Setting {
                    file: theirs.clone(),
                    before: "none".into(),
                    set: "bfq".into(),
                },
            },
            Line::Change {
                at: 0,
                id: 3,
                change: Change::created_folder(&folder).unwrap(),
            },
            Line::Change {
                at: 0,
                id: 4,
                change: Change::created_file(&file, &made).unwrap(),
            },
        ],
    );
    let cleaned = clean(state.path()).unwrap();
    assert_eq!(cleaned.len(), 1);
    let c = &cleaned[0];
    assert!(!c.alive);
    assert!(c.who.contains("kernel") && c.who.contains("999999"), "{c}");
    assert!(c.done[0].contains("removed file"), "newest first: {c}");
    assert!(!folder.exists() && !file.exists());
    assert_eq!(fs::read_to_string(&ours).unwrap(), "none");
    assert_eq!(
        fs::read_to_string(&theirs).unwrap(),
        "none [kyber] bfq\n",
        "a setting changed since is left alone"
    );
    assert!(!j.exists(), "the journal goes once undone");
    assert!(clean(state.path()).unwrap().is_empty());
}

#[test]
fn a_live_runs_journal_is_left_alone_and_goes_with_the_run() {
    let state = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let folder = work.path().join("f");
    fs::create_dir(&folder).unwrap();
    let j = Journal::begin_in(state.path(), "run").unwrap();
    let e = j.record(Change::created_folder(&folder).unwrap()).unwrap();
    let cleaned = clean(state.path()).unwrap();
    assert_eq!(cleaned.len(), 1);
    assert!(cleaned[0].alive, "{}", cleaned[0]);
    assert!(folder.exists(), "a live run's folder stays");
    j.undone(e);
    let path = j.path().to_path_buf();
    drop(j);
    assert!(!path.exists());
}

#[test]
fn undo_does_not_follow_a_link_put_where_a_folder_was() {
    let state = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let victim = work.path().join("victim");
    fs::create_dir(&victim).unwrap();
    fs::write(victim.join("keep"), b"x").unwrap();
    let folder = work.path().join("sluice-run-1-0");
    std::os::unix::fs::symlink(&victim, &folder).unwrap();
    dead_journal(
        state.path(),
        &[Line::Change {
            at: 0,
            id: 1,
            change: Change::Folder {
                path: folder,
                made: Some(Identity::of(&fs::metadata(&victim).unwrap())),
            },
        }],
    );
    clean(state.path()).unwrap();
    assert!(victim.join("keep").exists());
}

#[test]
fn a_device_is_held_by_one_run_at_a_time() {
    let state = tempfile::tempdir().unwrap();
    let dev = tempfile::NamedTempFile::new().unwrap();
    let first = DeviceLock::take_in(state.path(), dev.path()).unwrap();
    let e = DeviceLock::take_in(state.path(), dev.path()).unwrap_err();
    assert!(e.is::<crate::Refused>(), "{e}");
    assert!(
        e.to_string()
            .contains(&format!("pid {}", std::process::id())),
        "{e}"
    );
    drop(first);
    DeviceLock::take_in(state.path(), dev.path()).unwrap();
}

#[test]
fn the_start_time_tells_a_reused_pid_apart() {
    let me = std::process::id() as i32;
    let start = process_start(me).expect("our own /proc/PID/stat");
    assert!(start > 0);
    assert_eq!(process_start(i32::MAX), None);
}

#[test]
fn damaged_journals_and_strangers_in_the_state_folder_stop_nothing() {
    let state = tempfile::tempdir().unwrap();
    fs::write(
        state.path().join("run-1-0.journal"),
        [0xff, 0xfe, b'\n', 0, 1],
    )
    .unwrap();
    fs::create_dir(state.path().join("run-2-0.journal")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", state.path().join("run-3-0.journal")).unwrap();
    let cleaned = clean(state.path()).unwrap();
    assert_eq!(cleaned.len(), 1, "{cleaned:?}");
    assert!(cleaned[0].done.is_empty());
    assert!(fs::symlink_metadata(state.path().join("run-3-0.journal")).is_ok());
    assert!(Path::new("/etc/passwd").exists());
}

proptest::proptest! {
    /// Whatever a run recorded and undid, and however its last line was
    /// cut by the kill, what is pending is exactly the changes recorded
    /// and not undone, in the order they were made.
    #[test]
    fn pending_is_what_was_recorded_and_not_undone(
        ops in proptest::collection::vec((0u8..3, 0usize..64), 0..40),
        cut in 0usize..40,
    ) {
        let mut text = line(&Line::Begin { pid: 1, command: "run".into() });
        let mut model: Vec<(u64, Change)> = Vec::new();
        let mut next = 0u64;
        for (op, k) in ops {
            match op {
                0 | 1 => {
                    next += 1;
                    let change = Change::Cgroup { path: format!("/g{next}").into() };
                    text += &line(&Line::Change { id: next, change: change.clone(), at: next });
                    model.push((next, change));
                }
                _ if !model.is_empty() => {
                    let (id, _) = model.remove(k % model.len());
                    text += &line(&Line::Undone { id });
                }
                _ => {}
            }
        }
        // A kill mid-write leaves part of one more line (its JSON unclosed).
        let partial = line(&Line::Undone { id: 1 });
        text += &partial[..cut.min(partial.len() - 2)];
        let (who, pending) = pending(&text);
        proptest::prop_assert_eq!(who, Some((1, "run".to_string())));
        let pending: Vec<Change> = pending.into_iter().map(|p| p.change).collect();
        let want: Vec<Change> = model.into_iter().map(|m| m.1).collect();
        proptest::prop_assert_eq!(pending, want);
    }
}

#[test]
fn clean_removes_a_tracing_instance_a_dead_run_left() {
    let state = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    // An empty folder stands for the instance: rmdir takes both away.
    let instance = work.path().join("sluice-999999");
    fs::create_dir(&instance).unwrap();
    let gone = work.path().join("sluice-999998");
    dead_journal(
        state.path(),
        &[
            Line::Change {
                at: 0,
                id: 1,
                change: Change::Tracing {
                    path: instance.clone(),
                },
            },
            Line::Change {
                at: 0,
                id: 2,
                change: Change::Tracing { path: gone },
            },
        ],
    );
    let cleaned = clean(state.path()).unwrap();
    assert_eq!(cleaned.len(), 1);
    assert_eq!(cleaned[0].done.len(), 1, "{}", cleaned[0]);
    assert!(
        cleaned[0].done[0].contains("removed tracing instance"),
        "{}",
        cleaned[0]
    );
    assert!(!instance.exists());
}

/// Issue 42: what a new journal cleaned up after a dead run was printed
/// by the library; it is the journal's first warning now, for the run's
/// report, and taking the warnings leaves none.
#[test]
fn cleaning_up_is_a_warning_not_a_print() {
    let state = tempfile::tempdir().unwrap();
    let gone = state.path().join("gone");
    fs::create_dir(&gone).unwrap();
    dead_journal(
        state.path(),
        &[
            Line::Begin {
                pid: 999_999,
                command: "run".into(),
            },
            Line::Change {
                at: 0,
                id: 1,
                change: Change::created_folder(&gone).unwrap(),
            },
        ],
    );
    let j = Journal::begin_cleaning(state.path(), "test").unwrap();
    j.warn("later".into());
    let w = j.take_warnings();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(w[0].starts_with("cleaned up after"), "{w:?}");
    assert_eq!(w[1], "later");
    assert!(j.take_warnings().is_empty());
    assert!(!gone.exists());
}

/// `path` (absolute) as a path relative to this process's directory, the
/// way `--dir d` reaches it from there.
fn relative_from_cwd(path: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
    let mut up = PathBuf::new();
    for _ in cwd.components().skip(1) {
        up.push("..");
    }
    up.join(path.canonicalize().unwrap().strip_prefix("/").unwrap())
}

/// The text of a journal line recording `change` (as a run writes it).
fn change_line(id: u64, change: &Change) -> String {
    line(&Line::Change {
        at: 0,
        id,
        change: change.clone(),
    })
}

/// Issue 43, defect 1: a relative `--dir` was journaled relative, and the
/// clean (from another directory) removed a user's file of the same
/// relative name there, leaving sluice's own. Now the journal holds the
/// absolute path and the identity of what was created: sluice's file goes,
/// the user's file of the same relative name stays, and a relative path of
/// an older journal is never resolved against the cleaner's directory.
#[test]
fn clean_never_removes_a_users_file_of_the_same_relative_name() {
    let state = tempfile::tempdir().unwrap();
    let run_cwd = tempfile::tempdir().unwrap();
    let user_cwd = tempfile::tempdir().unwrap();
    let name = "d/sluice-00000-read-seq-4k.dat";
    fs::create_dir(run_cwd.path().join("d")).unwrap();
    fs::create_dir(user_cwd.path().join("d")).unwrap();
    let users = user_cwd.path().join(name);
    fs::write(&users, b"the user's data").unwrap();

    // The run, given `--dir d` in run_cwd: reached here by a relative
    // path, journaled absolute with what it created.
    let rel = relative_from_cwd(run_cwd.path()).join(name);
    assert!(rel.is_relative());
    let f = sluice_input::create_new(&rel, 0o600).unwrap();
    let change = Change::created_file(&rel, &f).unwrap();
    drop(f);
    let Change::File { path, made } = &change else {
        panic!("{change:?}")
    };
    assert!(path.is_absolute(), "{change:?}");
    assert_eq!(*path, run_cwd.path().canonicalize().unwrap().join(name));
    assert!(made.is_some(), "{change:?}");
    // An older sluice's line: the relative name, no identity; and one
    // whose relative path reaches the user's file from this directory.
    let reaches_users = relative_from_cwd(&users);
    dead_journal_text(
        state.path(),
        &format!(
            "{{\"change\":{{\"id\":1,\"change\":{{\"file\":{{\"path\":\"{name}\"}}}}}}}}\n\
             {{\"change\":{{\"id\":2,\"change\":{{\"file\":{{\"path\":\"{}\"}}}}}}}}\n{}",
            reaches_users.display(),
            change_line(3, &change)
        ),
    );

    let cleaned = clean(state.path()).unwrap();
    assert_eq!(cleaned.len(), 1);
    let done = &cleaned[0].done;
    assert_eq!(fs::read(&users).unwrap(), b"the user's data", "{done:?}");
    assert!(
        !run_cwd.path().join(name).exists(),
        "sluice's own file goes: {done:?}"
    );
    assert_eq!(done.len(), 3, "{done:?}");
    assert!(done[0].starts_with("removed file /"), "{done:?}");
    for w in &done[1..] {
        assert!(
            w.starts_with("warning: left file ") && w.contains("alone"),
            "{done:?}"
        );
    }
}

/// Issue 43, defect 1: a path that holds another file or folder than the
/// one sluice created (removed and made again since) is left alone, and
/// said so.
#[test]
fn clean_never_removes_a_file_or_folder_replaced_since() {
    let state = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("sluice-00000-a.dat");
    let folder = work.path().join("sluice-run-1-0");
    let made = sluice_input::create_new(&file, 0o600).unwrap();
    fs::create_dir(&folder).unwrap();
    let changes = [
        Change::created_file(&file, &made).unwrap(),
        Change::created_folder(&folder).unwrap(),
    ];
    // Replaced while the originals still exist, so the inodes differ.
    let other = work.path().join("other");
    fs::write(&other, b"someone's").unwrap();
    fs::rename(&other, &file).unwrap();
    let other = work.path().join("other-dir");
    fs::create_dir(&other).unwrap();
    fs::write(other.join("keep"), b"x").unwrap();
    fs::remove_dir(&folder).unwrap();
    fs::rename(&other, &folder).unwrap();
    let identity = |p: &Path| Identity::of(&fs::symlink_metadata(p).unwrap());
    assert!(!changes.iter().any(|c| matches!(c,
        Change::File { made, .. } | Change::Folder { made, .. }
            if *made == Some(identity(&file)) || *made == Some(identity(&folder)))));
    dead_journal_text(
        state.path(),
        &(change_line(1, &changes[0]) + &change_line(2, &changes[1])),
    );
    let cleaned = clean(state.path()).unwrap();
    let done = &cleaned[0].done;
    assert_eq!(fs::read(&file).unwrap(), b"someone's", "{done:?}");
    assert!(folder.join("keep").exists(), "{done:?}");
    assert_eq!(done.len(), 2, "{done:?}");
    assert!(
        done.iter()
            .all(|d| d.contains("not the one sluice created")),
        "{done:?}"
    );
    drop(made);
}

/// Journals of older sluices (no identity) still parse; what they name is
/// left alone and said so, as nothing tells it is what sluice created.
#[test]
fn an_older_journal_without_identity_removes_nothing() {
    let state = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let folder = work.path().join("sluice-run-1-0");
    fs::create_dir(&folder).unwrap();
    let text = format!(
        "{{\"change\":{{\"id\":1,\"change\":{{\"folder\":{{\"path\":\"{}\"}}}}}}}}\n",
        folder.display()
    );
    let (_, changes) = pending(&text);
    let changes: Vec<Change> = changes.into_iter().map(|p| p.change).collect();
    assert_eq!(
        changes,
        vec![Change::Folder {
            path: folder.clone(),
            made: None
        }]
    );
    dead_journal_text(state.path(), &text);
    let cleaned = clean(state.path()).unwrap();
    assert!(folder.exists());
    assert!(
        cleaned[0].done[0].starts_with("warning: left folder"),
        "{cleaned:?}"
    );
}

/// Issue 43, defect 2, after a crash: the settings a scheduler switch
/// resets are recorded before the switch, so `clean` (newest first) sets
/// the scheduler back, then them.
#[test]
fn clean_restores_what_a_scheduler_switch_reset_after_the_scheduler() {
    let state = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let scheduler = work.path().join("scheduler");
    let idle = work.path().join("slice_idle");
    fs::write(&scheduler, "[mq-deadline] bfq none\n").unwrap();
    fs::write(&idle, "8\n").unwrap();
    dead_journal(
        state.path(),
        &[
            Line::Begin {
                pid: 999999,
                command: "kernel".into(),
            },
            Line::Change {
                at: 0,
                id: 1,
                change: Change::Reset {
                    file: idle.clone(),
                    before: "3".into(),
                },
            },
            Line::Change {
                at: 0,
                id: 2,
                change: Change::Setting {
                    file: scheduler.clone(),
                    before: "bfq".into(),
                    set: "mq-deadline".into(),
                },
            },
        ],
    );
    let cleaned = clean(state.path()).unwrap();
    let done = &cleaned[0].done;
    assert!(
        done[0].contains("bfq") && done[1].contains("slice_idle"),
        "{done:?}"
    );
    assert_eq!(fs::read_to_string(&scheduler).unwrap(), "bfq");
    assert_eq!(fs::read_to_string(&idle).unwrap(), "3");
}

/// Issue 43 defect 11: `versus` and the kernel run inside it keep two
/// journals; `clean` undid them one after the other (versus's first, its
/// loop device detached before the kernel run's scheduler was set back).
/// Here both journals set the same file: only newest-first across them
/// brings back its first value.
#[test]
fn clean_undoes_two_dead_journals_newest_change_first_across_them() {
    let state = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("scheduler");
    fs::write(&file, "kernel's").unwrap();
    let set = |before: &str, set: &str| Change::Setting {
        file: file.clone(),
        before: before.into(),
        set: set.into(),
    };
    let journal = |name: &str, command: &str, at: u64, change: Change| {
        let begin = Line::Begin {
            pid: 5,
            command: command.into(),
        };
        dead_journal_named(
            state.path(),
            name,
            &[begin, Line::Change { id: 1, change, at }],
        );
    };
    // The older change is in the journal whose name sorts first.
    journal("run-5-0.journal", "versus", 100, set("user's", "versus's"));
    journal(
        "run-5-1.journal",
        "kernel",
        200,
        set("versus's", "kernel's"),
    );
    let cleaned = clean(state.path()).unwrap();
    assert_eq!(cleaned.len(), 2);
    assert_eq!(fs::read_to_string(&file).unwrap(), "user's", "{cleaned:?}");
    assert_eq!(fs::read_dir(state.path()).unwrap().count(), 0);
}

/// A `sh` running `setup(ready)` (the quoted path of a file it must create
/// once set up) then `sleep 60`, waited for until set up: its pid, its
/// start time and the thread that reaps it.
fn started(
    dir: &Path,
    setup: impl Fn(&str) -> String,
) -> (
    i32,
    u64,
    std::thread::JoinHandle<std::io::Result<std::process::ExitStatus>>,
) {
    let ready = dir.join("ready");
    let script = format!(
        "{}; exec sleep 60",
        setup(&format!("'{}'", ready.display()))
    );
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    // Wait for the event: set up once the file is there.
    while !ready.exists() {
        assert!(child.try_wait().unwrap().is_none(), "sh ended early");
        std::thread::yield_now();
    }
    let start = process_start(pid).unwrap();
    (pid, start, std::thread::spawn(move || child.wait()))
}

/// Issue 43 defect 11: `clean` sent SIGTERM and went on; a process that
/// ignores it stayed. Now it gets SIGKILL after the grace.
#[test]
fn clean_ends_a_journaled_process_that_ignores_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    // The trap is set once `ready` is there.
    let (pid, start, reaper) = started(dir.path(), |ready| format!("trap '' TERM; touch {ready}"));
    let stopped = super::process::stop_within(pid, start, std::time::Duration::from_millis(200));
    assert_eq!(stopped, super::process::Stopped::Killed);
    reaper.join().unwrap().unwrap();
    assert_eq!(process_start(pid), None);
}

/// A process the journal names but that has ended (or whose pid now
/// belongs to another process) is left alone.
#[test]
fn clean_leaves_a_pid_that_is_another_process_now() {
    let me = std::process::id() as i32;
    let start = process_start(me).unwrap();
    assert_eq!(
        super::process::stop(me, start + 1),
        super::process::Stopped::Gone
    );
}

/// Issue 43, every process a run starts is in its journal before it does
/// anything: the started process finds its own pid in the journal when
/// it is let go.
#[test]
fn a_started_process_is_in_the_journal_before_it_runs() {
    let state = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let journal = std::sync::Arc::new(Journal::begin_in(state.path(), "test").unwrap());
    let found = dir.path().join("found");
    let script = format!(
        "read go; [ \"$go\" = go ] && grep -q '\"pid\":'$$',' {} && touch {}",
        journal.path().display(),
        found.display()
    );
    let mut started = journal
        .spawn(std::process::Command::new("sh").arg("-c").arg(script))
        .unwrap();
    let status = started.child().wait().unwrap();
    assert!(status.success());
    assert!(
        found.exists(),
        "the child did not find itself in the journal"
    );
}

/// A sluice started by a run that then died found its own pid in the
/// dead parent's journal and stopped itself (the kill test caught a
/// `versus` journal left half undone that way).
#[test]
fn clean_never_stops_the_process_running_it() {
    let state = tempfile::tempdir().unwrap();
    let me = std::process::id() as i32;
    let start = process_start(me).unwrap();
    dead_journal(
        state.path(),
        &[Line::Change {
            id: 1,
            change: Change::Process { pid: me, start },
            at: 1,
        }],
    );
    let cleaned = clean(state.path()).unwrap();
    assert_eq!(cleaned.len(), 1);
    assert!(cleaned[0].done.is_empty(), "{:?}", cleaned[0].done);
}

/// The kill test caught a `versus` killed as it started its emulator:
/// `clean` read the folder while the emulator lived (its journal held,
/// so left alone), then stopped it as the dead versus's journal said,
/// and returned with the emulator's journal dead and not undone. Now
/// the folder is read again after a pass that stopped a process.
#[test]
fn clean_undoes_the_journal_of_a_process_it_stopped() {
    let state = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let made = work.path().join("emulator's file");
    fs::write(&made, "x").unwrap();
    let child_journal = dead_journal_named(
        state.path(),
        "run-2-0.journal",
        &[Line::Change {
            id: 1,
            change: Change::File {
                path: made.clone(),
                made: Some(Identity::of(&fs::symlink_metadata(&made).unwrap())),
            },
            at: 2,
        }],
    );
    // The emulator: holds its journal's lock until it ends.
    let (pid, start, reaper) = started(work.path(), |ready| {
        format!(
            "exec 9<'{}' && flock -n 9 && touch {ready}",
            child_journal.display()
        )
    });
    dead_journal_named(
        state.path(),
        "run-1-0.journal",
        &[Line::Change {
            id: 1,
            change: Change::Process { pid, start },
            at: 1,
        }],
    );
    let cleaned = clean(state.path()).unwrap();
    reaper.join().unwrap().unwrap();
    assert_eq!(cleaned.len(), 2, "{cleaned:?}");
    assert!(cleaned.iter().all(|c| !c.alive), "{cleaned:?}");
    assert!(!made.exists(), "{cleaned:?}");
    assert_eq!(fs::read_dir(state.path()).unwrap().count(), 0);
}
