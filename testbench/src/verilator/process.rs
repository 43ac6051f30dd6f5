//! The build's processes: `verilator --build` and the `make` and `g++` it
//! starts run in a process group of their own, and that group is killed as
//! a whole whenever the build does not run to its end.
//!
//! Three ways out are covered:
//!
//! * an error or a panic in the harness while the build runs:
//!   [`BuildProcess`]'s `Drop` kills the group and reaps the leader;
//! * the process that started the build dies, by any signal (SIGINT,
//!   SIGTERM, even SIGKILL) or `exit`: a *sentinel*, a small `sh` in a
//!   process group of its own that ignores SIGINT, SIGTERM and SIGHUP,
//!   reads a pipe from this process; end of file without the word `done`
//!   means this process is gone, and the sentinel kills the group. No
//!   signal handler is needed for this, so the harness installs none and
//!   never competes with the program's own handlers;
//! * a program that catches SIGINT or SIGTERM and does *not* exit at once
//!   (say, to clean up and return through `main`) calls [`kill_builds`]
//!   from its handler: it kills every running build's group, and the
//!   waiting [`build`](super::cache::build) returns
//!   [`HarnessError::Interrupted`](super::HarnessError::Interrupted).
//!   `kill_builds` is async-signal-safe (atomics and `kill(2)` only), so it
//!   may be called from a signal handler itself or from a `ctrlc`-style
//!   handler thread.
//!
//! The build's own group also means a Ctrl-C at the terminal reaches only
//! this process (the foreground group), which then dies or calls
//! `kill_builds`; either way the group goes with it.

use std::io::{self, Write as _};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

use std::os::unix::process::CommandExt as _;

use rustix::process::{kill_process_group, Pid, Signal};

/// Process groups of the builds running in this process (0 = free slot).
/// A fixed array of atomics so that [`kill_builds`] needs no lock.
static LIVE: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

/// Set by [`kill_builds`]: builds started afterwards are refused.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Kills the process group of every Verilator build running in this
/// process, and makes later builds fail at once with
/// [`HarnessError::Interrupted`](super::HarnessError::Interrupted).
///
/// For signal handlers of programs that do not exit right away (see the
/// module documentation): async-signal-safe.
pub fn kill_builds() {
    INTERRUPTED.store(true, Ordering::SeqCst);
    for slot in &LIVE {
        if let Some(pid) = Pid::from_raw(slot.load(Ordering::SeqCst)) {
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }
}

/// Whether [`kill_builds`] has been called in this process.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The sentinel: waits for `done` on its standard input, and kills the
/// group `$1` when the input ends without it (its parent has died).
/// `kill -9 -PGID` is the spelling every POSIX shell's builtin accepts
/// (dash rejects `kill -s KILL -- -PGID`).
const SENTINEL: &str =
    r#"trap '' INT TERM HUP; read -r verdict; [ "$verdict" = done ] || kill -9 -"$1" 2>/dev/null"#;

/// A running build: the leader (Verilator) of its own process group.
pub struct BuildProcess {
    child: Child,
    pgid: Pid,
    slot: Option<usize>,
    sentinel: Option<(Child, ChildStdin)>,
    reaped: bool,
}

impl BuildProcess {
    /// Starts `cmd` as the leader of a new process group, registered for
    /// [`kill_builds`] and watched by a sentinel.
    pub fn spawn(mut cmd: Command) -> io::Result<BuildProcess> {
        if interrupted() {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "this process is stopping",
            ));
        }
        cmd.process_group(0);
        let child = cmd.spawn()?;
        let pgid = Pid::from_child(&child);
        let slot = LIVE.iter().position(|s| {
            s.compare_exchange(0, pgid.as_raw_pid(), Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        });
        let mut process = BuildProcess {
            child,
            pgid,
            slot,
            sentinel: None,
            reaped: false,
        };
        // A sentinel that cannot start leaves the build unguarded only
        // against this process dying; the build itself is still worth it.
        process.sentinel = spawn_sentinel(pgid).ok();
        if interrupted() {
            // `kill_builds` ran between the check above and the registration.
            process.kill();
        }
        Ok(process)
    }

    /// Waits for the leader to exit, calling `tick` about every `period`.
    pub fn wait(&mut self, period: Duration, mut tick: impl FnMut()) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.child.try_wait()? {
                self.finished();
                return Ok(status);
            }
            tick();
            std::thread::sleep(period);
        }
    }

    /// Kills the whole group (used on errors; `Drop` does it too).
    pub fn kill(&mut self) {
        if !self.reaped {
            // The leader is not reaped yet, so the group id cannot have been
            // reused.
            let _ = kill_process_group(self.pgid, Signal::KILL);
        }
    }

    /// After the leader is reaped: no more killing by group id (it may be
    /// reused), and the sentinel is told to stand down.
    fn finished(&mut self) {
        self.reaped = true;
        if let Some(i) = self.slot.take() {
            LIVE[i].store(0, Ordering::SeqCst);
        }
        if let Some((mut sentinel, mut stdin)) = self.sentinel.take() {
            let _ = stdin.write_all(b"done\n");
            drop(stdin);
            let _ = sentinel.wait();
        }
    }
}

impl Drop for BuildProcess {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill();
            let _ = self.child.wait();
            self.finished();
        }
    }
}

fn spawn_sentinel(pgid: Pid) -> io::Result<(Child, ChildStdin)> {
    let mut sentinel = Command::new("sh")
        .args(["-c", SENTINEL, "concord-build-sentinel"])
        .arg(pgid.as_raw_pid().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    let stdin = sentinel.stdin.take().ok_or_else(|| {
        io::Error::new(io::ErrorKind::BrokenPipe, "no pipe to the build sentinel")
    })?;
    Ok((sentinel, stdin))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alive(pid: i32) -> bool {
        // A zombie is dead for this purpose (its parent just has not reaped it).
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => !stat
                .rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z')),
            Err(_) => false,
        }
    }

    /// A group of a shell and its background `sleep`, like verilator and
    /// its make.
    fn group() -> (BuildProcess, i32) {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("sleep 60 & echo $! > {}; wait", pidfile.display()));
        let p = BuildProcess::spawn(cmd).unwrap();
        let grandchild = loop {
            if let Some(pid) = std::fs::read_to_string(&pidfile)
                .ok()
                .and_then(|s| s.trim().parse::<i32>().ok())
            {
                break pid;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        (p, grandchild)
    }

    fn gone_soon(pid: i32) -> bool {
        (0..200).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            !alive(pid)
        })
    }

    #[test]
    fn dropping_a_running_build_kills_its_whole_group() {
        let (p, grandchild) = group();
        assert!(alive(grandchild));
        drop(p);
        assert!(
            gone_soon(grandchild),
            "the group's `sleep` outlived the drop"
        );
    }

    #[test]
    fn a_finished_build_stands_its_sentinel_down() {
        let mut p = BuildProcess::spawn(Command::new("true")).unwrap();
        let sentinel = p.sentinel.as_ref().unwrap().0.id() as i32;
        let status = p.wait(Duration::from_millis(5), || {}).unwrap();
        assert!(status.success());
        assert!(p.sentinel.is_none() && !alive(sentinel));
    }
}
