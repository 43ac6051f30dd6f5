//! Running one tool: its output goes to a log file, it may have a time
//! limit, and it runs as the leader of a process group of its own that is
//! killed whenever the run does not end by itself (a time-out, an error or
//! panic of the caller, [`kill_tools`] from a signal handler).
//!
//! A YoWASP tool is a Python process running a WebAssembly build; a native
//! Yosys may start `abc`: killing the group stops all of them.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use std::os::unix::process::CommandExt as _;

use rustix::process::{kill_process_group, Pid, Signal};

use crate::tools::Resolved;
use crate::FlowError;

/// Process groups of the tools running now (0 = free slot).
static LIVE: [AtomicI32; 16] = [const { AtomicI32::new(0) }; 16];
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Kills every tool this process runs now and refuses to start new ones.
/// Async-signal-safe (atomics and `kill(2)`), for a program's signal
/// handler (the `concord` CLI calls it on SIGINT, SIGTERM and SIGHUP).
pub fn kill_tools() {
    STOPPING.store(true, Ordering::SeqCst);
    for slot in &LIVE {
        if let Some(pid) = Pid::from_raw(slot.load(Ordering::SeqCst)) {
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }
}

/// A started tool; its group is killed on drop unless it was reaped.
struct Running {
    child: Child,
    pgid: Pid,
    slot: Option<usize>,
    reaped: bool,
}

impl Running {
    fn kill(&mut self) {
        if !self.reaped {
            let _ = kill_process_group(self.pgid, Signal::KILL);
        }
    }
    fn release(&mut self) {
        self.reaped = true;
        if let Some(i) = self.slot.take() {
            LIVE[i].store(0, Ordering::SeqCst);
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill();
            let _ = self.child.wait();
            self.release();
        }
    }
}

/// The last `n` lines of `text`.
pub(crate) fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The lines of a tool log that say what went wrong (`ERROR:`, yosys'
/// `ERROR:` too), or its last lines when none does.
pub(crate) fn failure_lines(log: &str) -> String {
    let errors: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("ERROR") || l.contains(" ERROR: "))
        .collect();
    if errors.is_empty() {
        tail(log, 20)
    } else {
        errors[..errors.len().min(5)].join("\n")
    }
}

/// Runs `tool` with `args` in `dir`, its standard output and error into
/// `log` (created or truncated). A non-zero exit is [`FlowError::Failed`]
/// naming the log; running past `timeout` kills it and is
/// [`FlowError::Timeout`].
pub fn run_logged(
    tool: &Resolved,
    args: &[&std::ffi::OsStr],
    dir: &Path,
    log: &Path,
    timeout: Option<Duration>,
) -> Result<(), FlowError> {
    let io = |e: std::io::Error, what: &Path| FlowError::Io(format!("{}: {e}", what.display()));
    if STOPPING.load(Ordering::SeqCst) {
        return Err(FlowError::Io("this process is stopping".into()));
    }
    let file = std::fs::File::create(log).map_err(|e| io(e, log))?;
    let err_file = file.try_clone().map_err(|e| io(e, log))?;
    let mut cmd = Command::new(&tool.program);
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err_file)
        .process_group(0);
    let child = cmd
        .spawn()
        .map_err(|e| FlowError::Io(format!("{}: {e}", tool.program.display())))?;
    let pgid = Pid::from_child(&child);
    let slot = LIVE.iter().position(|s| {
        s.compare_exchange(0, pgid.as_raw_pid(), Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    });
    let mut running = Running {
        child,
        pgid,
        slot,
        reaped: false,
    };
    if STOPPING.load(Ordering::SeqCst) {
        running.kill();
    }
    let start = Instant::now();
    let status = loop {
        match running.child.try_wait() {
            Ok(Some(status)) => {
                running.release();
                break status;
            }
            Ok(None) => {}
            Err(e) => return Err(FlowError::Io(format!("{}: {e}", tool.tool.name()))),
        }
        if let Some(limit) = timeout {
            if start.elapsed() >= limit {
                running.kill();
                let _ = running.child.wait();
                running.release();
                return Err(FlowError::Timeout {
                    tool: tool.tool.name(),
                    seconds: limit.as_secs(),
                    log: log.to_path_buf(),
                });
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    if !status.success() {
        let text = read_lossy(log);
        return Err(FlowError::Failed {
            tool: tool.tool.name(),
            status: status.to_string(),
            tail: failure_lines(&text),
            log: Some(log.to_path_buf()),
        });
    }
    Ok(())
}

/// A log file as text (invalid UTF-8 replaced), empty if unreadable.
pub(crate) fn read_lossy(path: &Path) -> String {
    let mut bytes = Vec::new();
    if let Ok(mut f) = std::fs::File::open(path) {
        let _ = f.read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The first line of `program <arg>` (`-V`, `--version`), for the report
/// header; `None` if it fails or takes longer than `limit`. Run like any
/// tool run (its own process group, killed on a time-out or a signal).
pub fn version_line(tool: &Resolved, arg: &str, limit: Duration) -> Option<String> {
    let dir = WorkDir::scratch("version").ok()?;
    let log = dir.join("version.log");
    run_logged(tool, &[arg.as_ref()], dir.path(), &log, Some(limit)).ok()?;
    read_lossy(&log)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("Preparing to run"))
        .map(str::to_string)
}

/// A directory for one flow's files.
///
/// A scratch directory ([`WorkDir::scratch`]) is removed when dropped,
/// unless [`WorkDir::keep`] was called (a failure keeps its logs); a
/// directory the user named ([`WorkDir::given`]) is always kept.
pub struct WorkDir {
    path: PathBuf,
    remove: bool,
}

impl WorkDir {
    pub fn scratch(tag: &str) -> Result<WorkDir, FlowError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("concord-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path)
            .map_err(|e| FlowError::Io(format!("{}: {e}", path.display())))?;
        Ok(WorkDir { path, remove: true })
    }

    /// `path`, created if missing (with its parents).
    pub fn given(path: &Path) -> Result<WorkDir, FlowError> {
        std::fs::create_dir_all(path)
            .map_err(|e| FlowError::Io(format!("{}: {e}", path.display())))?;
        Ok(WorkDir {
            path: path.to_path_buf(),
            remove: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Keeps the directory after drop.
    pub fn keep(&mut self) {
        self.remove = false;
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{Origin, Tool};

    fn sh() -> Resolved {
        Resolved {
            tool: Tool::Yosys,
            program: PathBuf::from("/bin/sh"),
            origin: Origin::Path,
        }
    }

    #[test]
    fn a_failure_names_the_log_and_quotes_its_errors() {
        let dir = WorkDir::scratch("proc-test").unwrap();
        let log = dir.join("t.log");
        let args: Vec<&std::ffi::OsStr> =
            ["-c", "echo Info: fine; echo 'ERROR: it broke' >&2; exit 3"]
                .iter()
                .map(|s| std::ffi::OsStr::new(*s))
                .collect();
        let e = run_logged(&sh(), &args, dir.path(), &log, None).unwrap_err();
        match &e {
            FlowError::Failed {
                tail, log: Some(l), ..
            } => {
                assert_eq!(tail, "ERROR: it broke");
                assert_eq!(l, &log);
            }
            other => panic!("{other:?}"),
        }
        assert!(e.to_string().contains(&log.display().to_string()), "{e}");
        assert!(read_lossy(&log).contains("Info: fine"));
    }

    #[test]
    fn a_timeout_kills_the_whole_group() {
        let dir = WorkDir::scratch("proc-test").unwrap();
        let log = dir.join("t.log");
        let pidfile = dir.join("pid");
        let script = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
        let args: Vec<&std::ffi::OsStr> = vec!["-c".as_ref(), script.as_ref()];
        let t = Instant::now();
        let e = run_logged(
            &sh(),
            &args,
            dir.path(),
            &log,
            Some(Duration::from_millis(500)),
        )
        .unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(10));
        assert!(matches!(e, FlowError::Timeout { seconds: 0, .. }), "{e:?}");
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The background `sleep` went with the group (a zombie at most,
        // until init reaps it).
        std::thread::sleep(Duration::from_millis(200));
        let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                !s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false);
        assert!(!alive, "sleep {pid} survived");
    }
}
