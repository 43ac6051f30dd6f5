//! Generators built on demand: the Core v2 Verilog of a width combination
//! that is not compiled into this crate.
//!
//! rust-hdl sizes ports with const generics, so the body is one Rust type
//! per `(L, W, Kt, row_bits, PB, AW)` (`core::body_generics`,
//! `core::decode_generics`), and the crate compiles the combinations of
//! `configs/` and of the Verilator harness (`core::body_verilog`). For any
//! other configuration that `HwParams::new` accepts, [`core_verilog`]
//! writes a one-file crate whose `main` instantiates
//! `core::body_verilog_for` at the configuration's widths, builds it with
//! the Cargo that built Concord (offline, with the workspace's
//! `Cargo.lock`, in a target directory of its own) and runs it: the
//! configuration as YAML on its standard input, the Verilog on its
//! standard output. It is the same generator code, instantiated at other
//! widths.
//!
//! Cost: the first generator built in a target directory compiles this
//! crate (without its compiled list, feature `compiled-widths`) and its
//! dependencies, a few minutes; every further width combination is one
//! small crate, about 30 s. Cargo reuses a built generator and rebuilds
//! it when the sources change. The directory is `$CONCORD_GEN_DIR`, or
//! `target/concord-gen` in the workspace; each generator's crate and
//! build log are in `<dir>/<name>/`.
//!
//! It needs the workspace's sources (the path this crate was built from)
//! and `cargo`; without them the configuration is refused as before, with
//! the reason.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use concord_isa::config::CoreConfig;
use concord_uarch::{GenOptions, HwParams};

use super::core::{body_generics, decode_generics};

/// Why no generator could be built or run.
#[derive(Debug, thiserror::Error)]
pub enum OnDemandError {
    /// The workspace this crate was built from is not there any more.
    #[error("the Concord sources are not at {0} (the generator is built from them)")]
    Sources(PathBuf),
    /// Writing the generator's crate failed.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `cargo` could not be started.
    #[error("cannot run `{cargo}`: {source}")]
    Cargo {
        cargo: String,
        source: std::io::Error,
    },
    /// `cargo build` failed; its output is in `log`.
    #[error("`cargo build` of the generator failed (log: {log}): {tail}")]
    Build { log: PathBuf, tail: String },
    /// The generator ran and failed.
    #[error("the generator {binary} failed: {message}")]
    Run { binary: PathBuf, message: String },
}

/// The widths a generator is built for: `[L, W, Kt, row_bits, PB, AW]`,
/// the order of `core::body_verilog`'s list.
pub fn widths(hw: &HwParams) -> [usize; 6] {
    let (l, w, k, rb) = body_generics(hw);
    let (pb, aw) = decode_generics(hw);
    [l, w, k, rb, pb, aw]
}

/// The generator crate's (and binary's) name for `widths`.
pub fn generator_name(widths: [usize; 6]) -> String {
    let [l, w, k, rb, pb, aw] = widths;
    format!("concord-gen-l{l}-w{w}-k{k}-rb{rb}-pb{pb}-aw{aw}")
}

/// The workspace root: the parent of this crate's directory.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("concord-hdl lives in the workspace")
        .to_path_buf()
}

/// Where generators are built: `$CONCORD_GEN_DIR`, or `target/concord-gen`
/// in the workspace.
pub fn generator_dir() -> PathBuf {
    match std::env::var_os("CONCORD_GEN_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace().join("target").join("concord-gen"),
    }
}

/// The Verilog of `config` with `gen` from the generator built for its
/// widths (built first if needed). `config` must pass `HwParams::new`.
pub fn core_verilog(config: &CoreConfig, gen: &GenOptions) -> Result<String, OnDemandError> {
    let hw = HwParams::new(config).expect("core::core_verilog checked the configuration");
    let widths = widths(&hw);
    let name = generator_name(widths);
    let root = workspace();
    for member in ["hdl", "isa", "uarch"] {
        if !root.join(member).join("Cargo.toml").is_file() {
            return Err(OnDemandError::Sources(root));
        }
    }
    let dir = generator_dir();
    let crate_dir = dir.join(&name);
    write_if_changed(&crate_dir.join("Cargo.toml"), &manifest(&name, &root))?;
    write_if_changed(&crate_dir.join("src").join("main.rs"), &main_rs(widths))?;
    copy_lock(&root.join("Cargo.lock"), &crate_dir.join("Cargo.lock"))?;
    let target = dir.join("target");
    let binary = target.join("release").join(&name);
    if !binary.is_file() {
        eprintln!(
            "concord-hdl: building the RTL generator for lanes {} warps {} \
             (widths Kt {}, row_bits {}, PB {}, AW {}: not compiled in; about 30 s, \
             a few minutes for the first generator in {})",
            widths[0],
            widths[1],
            widths[2],
            widths[3],
            widths[4],
            widths[5],
            dir.display()
        );
    }
    build(&crate_dir, &target)?;
    run(&binary, config, gen)
}

/// The generator crate's manifest: this workspace's three crates by path,
/// the release profile of the workspace, a workspace of its own.
fn manifest(name: &str, root: &Path) -> String {
    let path = |member: &str| toml_string(&root.join(member).display().to_string());
    format!(
        "# Generated by concord-hdl (hdl/src/v2/ondemand.rs). Do not edit.\n\
         [package]\n\
         name = \"{name}\"\n\
         version = \"0.0.0\"\n\
         edition = \"2021\"\n\
         publish = false\n\
         \n\
         [dependencies]\n\
         concord-hdl = {{ path = {}, default-features = false }}\n\
         concord-isa = {{ path = {} }}\n\
         concord-uarch = {{ path = {} }}\n\
         \n\
         [profile.release]\n\
         codegen-units = 4\n\
         \n\
         [workspace]\n",
        path("hdl"),
        path("isa"),
        path("uarch"),
    )
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The generator's `main`: options as arguments (`trace`, `counter_bits`,
/// `debug_regs`), the configuration as YAML on standard input, the Verilog
/// on standard output, an error on standard error with exit code 1.
fn main_rs(widths: [usize; 6]) -> String {
    let [l, w, k, rb, pb, aw] = widths;
    format!(
        r#"// Generated by concord-hdl (hdl/src/v2/ondemand.rs). Do not edit.
use std::io::{{Read, Write}};

fn fail(message: &str) -> ! {{
    eprintln!("{{message}}");
    std::process::exit(1)
}}

fn main() {{
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [trace, counter_bits, debug_regs] = args.as_slice() else {{
        fail("usage: TRACE(0|1) COUNTER_BITS DEBUG_REGS(0|1) < config.yaml")
    }};
    let gen = concord_uarch::GenOptions {{
        trace: trace == "1",
        counter_bits: counter_bits.parse().unwrap_or_else(|_| fail("COUNTER_BITS is a number")),
        debug_regs: debug_regs == "1",
    }};
    let mut yaml = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut yaml) {{
        fail(&format!("standard input: {{e}}"))
    }}
    let config = concord_isa::config::CoreConfig::from_yaml(&yaml, "<standard input>")
        .unwrap_or_else(|e| fail(&e.to_string()));
    let body = concord_hdl::v2::core::body_verilog_for::<{l}, {w}, {k}, {rb}, {pb}, {aw}>;
    match concord_hdl::v2::core::core_verilog_from(&config, &gen, body) {{
        Ok(verilog) => {{
            let mut out = std::io::stdout().lock();
            if out.write_all(verilog.as_bytes()).and_then(|()| out.flush()).is_err() {{
                fail("cannot write the Verilog to standard output")
            }}
        }}
        Err(e) => fail(&e.to_string()),
    }}
}}
"#
    )
}

/// Writes `text` to `path` unless it holds it already (so that Cargo sees
/// no change), through a temporary file beside it renamed over it (so that
/// a concurrent build never reads half a file).
fn write_if_changed(path: &Path, text: &str) -> Result<(), OnDemandError> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    let io = |source| OnDemandError::Io {
        path: path.to_path_buf(),
        source,
    };
    let parent = path.parent().expect("a file in a directory");
    std::fs::create_dir_all(parent).map_err(io)?;
    let mut temporary = tempfile::NamedTempFile::new_in(parent).map_err(io)?;
    temporary.write_all(text.as_bytes()).map_err(io)?;
    temporary.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Copies the workspace's `Cargo.lock` (the versions Concord was built
/// with, so that an offline build finds them) unless the copy is newer.
fn copy_lock(workspace_lock: &Path, lock: &Path) -> Result<(), OnDemandError> {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(theirs), Some(ours)) = (modified(workspace_lock), modified(lock)) {
        if ours >= theirs {
            return Ok(());
        }
    }
    let text = std::fs::read_to_string(workspace_lock).map_err(|source| OnDemandError::Io {
        path: workspace_lock.to_path_buf(),
        source,
    })?;
    write_if_changed(lock, &text)
}

/// `cargo build --release --offline` of the generator crate in
/// `crate_dir`, into `target`; its output goes to `build.log` beside it.
fn build(crate_dir: &Path, target: &Path) -> Result<(), OnDemandError> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let log = crate_dir.join("build.log");
    let output = Command::new(&cargo)
        .args(["build", "--release", "--offline", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .stdin(Stdio::null())
        .output()
        .map_err(|source| OnDemandError::Cargo {
            cargo: cargo.clone(),
            source,
        })?;
    let mut text = output.stdout;
    text.extend_from_slice(&output.stderr);
    std::fs::write(&log, &text).map_err(|source| OnDemandError::Io {
        path: log.clone(),
        source,
    })?;
    if output.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&text);
    let tail: Vec<&str> = text.lines().rev().take(6).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    Err(OnDemandError::Build {
        log,
        tail: tail.join(" / "),
    })
}

/// Runs the generator `binary` on `config` with `gen`.
fn run(binary: &Path, config: &CoreConfig, gen: &GenOptions) -> Result<String, OnDemandError> {
    let failed = |message: String| OnDemandError::Run {
        binary: binary.to_path_buf(),
        message,
    };
    let flag = |on: bool| if on { "1" } else { "0" };
    let mut child = Command::new(binary)
        .args([
            flag(gen.trace).to_string(),
            gen.counter_bits.to_string(),
            flag(gen.debug_regs).to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(e.to_string()))?;
    let yaml = config.to_yaml();
    let mut stdin = child.stdin.take().expect("piped");
    // The YAML is a few hundred bytes: written before the output is read.
    let written = stdin.write_all(yaml.as_bytes());
    drop(stdin);
    let output = child
        .wait_with_output()
        .map_err(|e| failed(e.to_string()))?;
    if !output.status.success() {
        return Err(failed(
            String::from_utf8_lossy(&output.stderr).trim().to_string(),
        ));
    }
    written.map_err(|e| failed(format!("standard input: {e}")))?;
    String::from_utf8(output.stdout).map_err(|_| failed("the Verilog is not UTF-8".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The name and the generated `main` carry the widths in
    /// `body_verilog`'s order; the default core's are those of its entry
    /// in the compiled list (`8 8 6 9 56 8`).
    #[test]
    fn the_generator_is_named_and_instantiated_at_the_configurations_widths() {
        let hw = HwParams::new(&CoreConfig::default()).unwrap();
        assert_eq!(widths(&hw), [8, 8, 6, 9, 56, 8]);
        assert_eq!(
            generator_name(widths(&hw)),
            "concord-gen-l8-w8-k6-rb9-pb56-aw8"
        );
        assert!(main_rs(widths(&hw)).contains("body_verilog_for::<8, 8, 6, 9, 56, 8>"));
        let registers16 = CoreConfig {
            registers: 16,
            ..CoreConfig::default()
        };
        // 8 warps x 16 registers: 128 rows, 7 address bits.
        assert_eq!(widths(&HwParams::new(&registers16).unwrap())[5], 7);
    }

    #[test]
    fn paths_in_the_manifest_are_toml_strings() {
        assert_eq!(toml_string(r#"a\b"c"#), r#""a\\b\"c""#);
        let text = manifest("x", Path::new("/w"));
        assert!(text.contains("concord-hdl = { path = \"/w/hdl\", default-features = false }"));
    }
}
