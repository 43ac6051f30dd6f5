//! `kill_builds`, what a program's SIGINT/SIGTERM handler calls when it
//! does not exit at once: the running build's whole process group dies,
//! the build returns `Interrupted`, and later builds are refused. (A test
//! binary of its own: `kill_builds` stops every build of the process.)

use std::path::PathBuf;
use std::time::{Duration, Instant};

mod toy;

use concord_testbench::verilator::{kill_builds, BuildOptions, HarnessError};

/// Live (not zombie) descendants of this process: (pid, name).
fn descendants() -> Vec<(u32, String)> {
    let all: Vec<(u32, u32, String)> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (head, rest) = text.rsplit_once(')')?;
            let comm = head.split_once('(')?.1.to_string();
            let f: Vec<&str> = rest.split_whitespace().collect();
            (f.first() != Some(&"Z")).then_some(())?;
            Some((pid, f.get(1)?.parse().ok()?, comm))
        })
        .collect();
    let mut tree = vec![std::process::id()];
    let mut out = Vec::new();
    loop {
        let before = tree.len();
        for (pid, ppid, comm) in &all {
            if tree.contains(ppid) && !tree.contains(pid) {
                tree.push(*pid);
                out.push((*pid, comm.clone()));
            }
        }
        if tree.len() == before {
            return out;
        }
    }
}

#[test]
fn kill_builds_stops_the_running_build_and_every_later_one() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("rtl-cache-interrupt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = BuildOptions {
        cache_dir: Some(dir.clone()),
        ..BuildOptions::default()
    };
    // A text no cache holds: this builds.
    let text = format!(
        "{}\n// interrupt test {}\n",
        toy::verilog(),
        std::process::id()
    );
    let build = std::thread::spawn({
        let (text, options) = (text.clone(), options.clone());
        move || toy::build(&text, &options)
    });
    let start = Instant::now();
    // Until the C++ compiler runs: verilator, make, g++ and cc1plus are up.
    while !descendants().iter().any(|(_, c)| c == "cc1plus") {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no compile started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    kill_builds();
    let result = build.join().unwrap();
    assert!(
        matches!(result, Err(HarnessError::Interrupted)),
        "{result:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !descendants().is_empty() {
        assert!(
            Instant::now() < deadline,
            "left running: {:?}",
            descendants()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The interrupted build leaves no temporary directory and no entry.
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.iter().all(|n| n.ends_with(".lock")), "{left:?}");
    // The process is stopping: no new build starts.
    let again = toy::build(&format!("{text}// again\n"), &options);
    assert!(matches!(again, Err(HarnessError::Interrupted)), "{again:?}");
    assert!(descendants().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
