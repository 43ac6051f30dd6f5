//! What a build shows while it runs: a spinner on stderr with the elapsed
//! time and the current step ("verilating", "compiling C++ (2/4)",
//! "linking"), read from the build log as it grows, when stderr is a
//! terminal. Off a terminal (logs, CI) a build that takes tens of seconds
//! is still announced: one line when it starts and one when it is done.

use std::fs::File;
use std::io::{IsTerminal as _, Read as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The spinner of one build (or nothing, off a terminal).
pub struct Progress {
    bar: Option<ProgressBar>,
    what: String,
    started: Instant,
}

impl Progress {
    /// `label`: the model being built, for people ("4 lanes x 1 warp, ...").
    pub fn start(label: Option<&str>) -> Progress {
        let what = match label {
            Some(l) => format!("the RTL model ({l})"),
            None => "the RTL model".to_string(),
        };
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            // The step first: a line too long for the terminal is cut at
            // its end, where the label is.
            let style = ProgressStyle::with_template(
                "{spinner} building the RTL model [{elapsed}]: {msg}{prefix}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
            bar.set_style(style);
            bar.set_prefix(label.map(|l| format!(" · {l}")).unwrap_or_default());
            bar.set_message("starting");
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        if bar.is_none() {
            eprintln!("building {what} with Verilator (20-70 s)");
        }
        Progress {
            bar,
            what,
            started: Instant::now(),
        }
    }

    pub fn step(&self, step: &str) {
        if let Some(bar) = &self.bar {
            if bar.message() != step {
                bar.set_message(step.to_string());
            }
        }
    }

    /// Runs `f` (which prints to stderr) with the spinner hidden.
    pub fn suspend(&self, f: impl FnOnce()) {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Clears the spinner; after a successful build, leaves one line saying
    /// where the model went.
    pub fn finish(self, built_in: Option<&Path>) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        if let Some(dir) = built_in {
            eprintln!(
                "built {} in {:.0} s (cached in {})",
                self.what,
                self.started.elapsed().as_secs_f64(),
                dir.display()
            );
        }
    }
}

/// Follows `verilator --build`'s log and names the step it is in.
///
/// Verilator writes nothing to the log while it verilates; then `make`
/// enters the object directory, prints one `g++ ... -c -o X.o` line per
/// compile it starts, and a last `g++` line writing the library.
pub struct LogFollower {
    log: PathBuf,
    obj: PathBuf,
    file: Option<File>,
    partial: String,
    make_started: bool,
    compiles: usize,
    planned: Option<usize>,
    linking: bool,
}

impl LogFollower {
    pub fn new(log: PathBuf, obj: PathBuf) -> LogFollower {
        LogFollower {
            log,
            obj,
            file: None,
            partial: String::new(),
            make_started: false,
            compiles: 0,
            planned: None,
            linking: false,
        }
    }

    /// Reads what the log gained since the last call; returns the step.
    pub fn poll(&mut self) -> String {
        if self.file.is_none() {
            self.file = File::open(&self.log).ok();
        }
        if let Some(f) = &mut self.file {
            let mut bytes = Vec::new();
            if f.read_to_end(&mut bytes).is_ok() && !bytes.is_empty() {
                self.feed(&String::from_utf8_lossy(&bytes));
            }
        }
        if self.make_started && self.planned.is_none() {
            self.planned = planned_compiles(&self.obj);
        }
        self.step()
    }

    fn feed(&mut self, text: &str) {
        self.partial.push_str(text);
        while let Some(end) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=end).collect();
            self.line(line.trim_end());
        }
    }

    fn line(&mut self, line: &str) {
        if line.starts_with("make") && line.contains("Entering directory") {
            self.make_started = true;
        } else if line.contains(" -c -o ") {
            self.make_started = true;
            self.compiles += 1;
        } else if line.contains(&format!("-o ../{}", super::cache::LIBRARY_FILE)) {
            self.linking = true;
        }
    }

    pub fn step(&self) -> String {
        if self.linking {
            "linking".into()
        } else if self.compiles > 0 {
            match self.planned {
                Some(m) if m >= self.compiles => format!("compiling C++ ({}/{m})", self.compiles),
                _ => format!("compiling C++ ({})", self.compiles),
            }
        } else if self.make_started {
            "compiling C++".into()
        } else {
            "verilating".into()
        }
    }
}

/// The number of object files `make` builds, from the makefiles Verilator
/// wrote: the model's classes (one `__ALL` file unless the build is split
/// for parallelism), Verilator's runtime and the user's files (the shim).
pub fn planned_compiles(obj: &Path) -> Option<usize> {
    let classes = std::fs::read_to_string(obj.join("Vconcord_core_classes.mk")).ok()?;
    let top = std::fs::read_to_string(obj.join("Vconcord_core.mk")).ok()?;
    let parallel = make_var(&classes, "VM_PARALLEL_BUILDS")?.first() == Some(&"1");
    let count = |text: &str, names: &[&str]| -> Option<usize> {
        names
            .iter()
            .map(|n| make_var(text, n).map(|v| v.len()))
            .sum()
    };
    let model = if parallel {
        count(
            &classes,
            &[
                "VM_CLASSES_FAST",
                "VM_CLASSES_SLOW",
                "VM_SUPPORT_FAST",
                "VM_SUPPORT_SLOW",
            ],
        )?
    } else {
        1
    };
    let runtime = count(&classes, &["VM_GLOBAL_FAST", "VM_GLOBAL_SLOW"])?;
    let user = count(&top, &["VM_USER_CLASSES"])?;
    Some(model + runtime + user)
}

/// The words of a make variable set by `NAME = ...` or `NAME += ...`, with
/// `\` continuation lines.
fn make_var<'a>(text: &'a str, name: &str) -> Option<Vec<&'a str>> {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix(name) else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(value) = rest.strip_prefix("+=").or_else(|| rest.strip_prefix('=')) else {
            continue;
        };
        let mut words = Vec::new();
        let mut value = value;
        loop {
            let continued = value.trim_end().ends_with('\\');
            words.extend(value.trim_end().trim_end_matches('\\').split_whitespace());
            if !continued {
                break;
            }
            value = lines.next().unwrap_or("");
        }
        return Some(words);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verilator 5.006's makefiles for the toy core (abridged).
    const CLASSES: &str = "VM_PARALLEL_BUILDS = 0\nVM_TRACE = 0\n# Generated module classes, fast-path, compile with highest optimization\nVM_CLASSES_FAST += \\\n\tVconcord_core \\\n\tVconcord_core___024root__DepSet_h01109d83__0 \\\n\nVM_CLASSES_SLOW += \\\n\tVconcord_core__ConstPool_0 \\\n\nVM_SUPPORT_FAST += \\\n\nVM_SUPPORT_SLOW += \\\n\tVconcord_core__Syms \\\n\nVM_GLOBAL_FAST += \\\n\tverilated \\\n\tverilated_threads \\\n\nVM_GLOBAL_SLOW += \\\n\n";
    const TOP: &str = "VM_PREFIX = Vconcord_core\nVM_USER_CLASSES = \\\n\tshim \\\n\n# User .cpp directories\nVM_USER_DIR = \\\n\t.. \\\n";

    #[test]
    fn make_variables_with_continuations() {
        assert_eq!(
            make_var(CLASSES, "VM_GLOBAL_FAST").unwrap(),
            ["verilated", "verilated_threads"]
        );
        assert_eq!(
            make_var(CLASSES, "VM_SUPPORT_FAST").unwrap(),
            Vec::<&str>::new()
        );
        assert_eq!(make_var(TOP, "VM_USER_CLASSES").unwrap(), ["shim"]);
        assert_eq!(make_var(CLASSES, "VM_PARALLEL_BUILDS").unwrap(), ["0"]);
        assert!(make_var(CLASSES, "NOPE").is_none());
    }

    #[test]
    fn planned_compiles_of_a_single_file_model() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Vconcord_core_classes.mk"), CLASSES).unwrap();
        std::fs::write(dir.path().join("Vconcord_core.mk"), TOP).unwrap();
        // __ALL.o, verilated.o, verilated_threads.o, shim.o (the toy's real log).
        assert_eq!(planned_compiles(dir.path()), Some(4));
        let split = CLASSES.replace("VM_PARALLEL_BUILDS = 0", "VM_PARALLEL_BUILDS = 1");
        std::fs::write(dir.path().join("Vconcord_core_classes.mk"), split).unwrap();
        // 2 fast + 1 slow + 1 support classes, 2 runtime files, the shim.
        assert_eq!(planned_compiles(dir.path()), Some(7));
    }

    #[test]
    fn steps_follow_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("build.log");
        let mut f = LogFollower::new(log.clone(), dir.path().join("obj"));
        assert_eq!(f.poll(), "verilating");
        std::fs::write(&log, "make: Entering directory '/x/obj'\n").unwrap();
        assert_eq!(f.poll(), "compiling C++");
        let mut text = std::fs::read_to_string(&log).unwrap();
        text += "g++  -I.  -MMD -O2 -c -o shim.o ../shim.cpp\ng++ -I. -c -o verilated.o /usr/share/verilator/include/verilated.cpp\ng++ -I. -c -o Vcon";
        std::fs::write(&log, &text).unwrap();
        assert_eq!(f.poll(), "compiling C++ (2)");
        text += "cord_core__ALL.o Vconcord_core__ALL.cpp\n";
        std::fs::write(&log, &text).unwrap();
        assert_eq!(f.poll(), "compiling C++ (3)");
        text +=
            "g++    shim.o verilated.o Vconcord_core__ALL.a   -shared  -o ../libconcord_core.so\n";
        std::fs::write(&log, &text).unwrap();
        assert_eq!(f.poll(), "linking");
    }
}
