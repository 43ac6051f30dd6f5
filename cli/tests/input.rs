//! Input files end to end: special files and oversized files refused
//! quickly, bad text located, one `error:` prefix, control characters
//! escaped, long lines quoted once, a leading byte-order mark dropped,
//! standard input as `-`, and `disasm | asm -` reproducing containers byte
//! for byte.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("concord-input-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `concord` with `stdin` and extra environment; kills it and fails
/// after 20 s, so that a blocked read fails the test instead of hanging it.
fn concord_with(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let pid = child.id();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    // Output is collected while the command runs, so that a full pipe
    // never stalls it.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("concord {args:?} did not finish within 20 s");
        }
    }
}

fn concord(args: &[&str]) -> Output {
    concord_with(args, b"", &[])
}

/// Expects exit 1 and exactly one `error:` line, first; returns stderr.
fn fails(args: &[&str]) -> String {
    fails_with(args, b"", &[])
}

fn fails_with(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> String {
    let out = concord_with(args, stdin, env);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "concord {args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert_eq!(stderr.matches("error:").count(), 1, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

fn ok_with(args: &[&str], stdin: &[u8]) -> Output {
    let out = concord_with(args, stdin, &[]);
    assert!(
        out.status.success(),
        "concord {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// No character a terminal acts on.
fn printable(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
}

#[test]
fn asm_of_dev_zero_is_refused_at_once() {
    let start = Instant::now();
    let err = fails(&["asm", "/dev/zero", "-o", "/tmp/never.cbin"]);
    assert_eq!(
        err,
        "error: /dev/zero: is a character device; an assembly source must be a regular file\n"
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    let err = fails(&["disasm", "/dev/zero"]);
    assert!(err.contains("is a character device"), "{err}");
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = scratch("fifo");
    for name in ["k.s", "k.cbin", "k.cu", "l.yaml", "c.yaml"] {
        let made = Command::new("mkfifo").arg(dir.join(name)).status().unwrap();
        assert!(made.success());
    }
    let fifo = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let out = dir.join("o.cbin");
    for (args, what) in [
        (
            vec!["asm", &fifo("k.s"), "-o", s(&out)],
            "an assembly source",
        ),
        (vec!["disasm", &fifo("k.cbin")], "a kernel container"),
        (
            vec!["compile", &fifo("k.cu"), "-o", s(&out)],
            "a kernel source",
        ),
        (vec!["run", &fifo("l.yaml")], "a launch description"),
        (
            vec!["run", "kernels/vecadd.yaml", "--config", &fifo("c.yaml")],
            "a core configuration",
        ),
        (
            vec!["config", "check", &fifo("c.yaml")],
            "a core configuration",
        ),
    ] {
        let err = fails(&args);
        assert!(
            err.contains(&format!(
                "is a FIFO (named pipe); {what} must be a regular file"
            )),
            "{args:?}: {err}"
        );
    }
    assert!(!out.exists());
}

#[test]
fn a_directory_is_refused_by_name() {
    let dir = scratch("dir");
    let err = fails(&["asm", s(&dir), "-o", s(&dir.join("o.cbin"))]);
    assert_eq!(
        err,
        format!(
            "error: {}: is a directory; an assembly source must be a regular file\n",
            dir.display()
        )
    );
}

#[test]
fn a_1_gib_config_is_refused_without_reading_it() {
    let dir = scratch("big");
    let big = dir.join("big.yaml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let start = Instant::now();
    let err = fails(&["run", "kernels/vecadd.yaml", "--json", "--config", s(&big)]);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(
        err,
        format!(
            "error: {}: 1073741824 bytes is more than the limit of 16777216 bytes (16 MiB) for a core configuration; set CONCORD_MAX_INPUT_MIB (in MiB) to raise it\n",
            big.display()
        )
    );
    // The variable moves the cap both ways, and a bad value is named.
    let small = dir.join("small.s");
    std::fs::write(&small, format!("exit\n{}", " ".repeat(2 << 20))).unwrap();
    let out = dir.join("small.cbin");
    let err = fails_with(
        &["asm", s(&small), "-o", s(&out)],
        b"",
        &[("CONCORD_MAX_INPUT_MIB", "1")],
    );
    assert!(
        err.contains("2097157 bytes is more than the limit of 1048576 bytes (1 MiB)"),
        "{err}"
    );
    let ok = concord_with(
        &["asm", s(&small), "-o", s(&out)],
        b"",
        &[("CONCORD_MAX_INPUT_MIB", "3")],
    );
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let err = fails_with(
        &["asm", s(&small), "-o", s(&out)],
        b"",
        &[("CONCORD_MAX_INPUT_MIB", "lots")],
    );
    assert_eq!(
        err,
        "error: environment variable CONCORD_MAX_INPUT_MIB: `lots` is not a whole number of MiB in 1..=1048576\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn assembly_errors_have_one_prefix() {
    let dir = scratch("prefix");
    let src = dir.join("f.s");
    std::fs::write(&src, "nop\n  ad r1, r2\n").unwrap();
    let err = fails(&["asm", s(&src), "-o", s(&dir.join("f.cbin"))]);
    assert_eq!(
        err,
        format!(
            "error: {}:2:3: unknown mnemonic `ad`\n  ad r1, r2\n  ^\n",
            src.display()
        )
    );
    // Through a launch too.
    let launch = dir.join("l.yaml");
    std::fs::write(&launch, "program: f.s\ngrid: [1]\nblock: [1]\n").unwrap();
    let err = fails(&["run", s(&launch)]);
    assert!(
        err.starts_with(&format!("error: {}:2:3: ", src.display())),
        "{err}"
    );
}

#[test]
fn invalid_utf8_is_located_in_every_text_input() {
    let dir = scratch("utf8");
    let cu = dir.join("k.cu");
    std::fs::write(&cu, b"__global__ void k(int *a) {\n  a[0] = \xfe;\n}\n").unwrap();
    let err = fails(&["compile", s(&cu), "-o", s(&dir.join("k.cbin"))]);
    assert_eq!(
        err,
        format!(
            "error: {}:2:10: invalid UTF-8 at byte 37 (0xfe); a kernel source must be UTF-8 text\n",
            cu.display()
        )
    );
    let asm = dir.join("k.s");
    std::fs::write(&asm, b"exit ; \xe2\x82\n").unwrap();
    let err = fails(&["asm", s(&asm), "-o", s(&dir.join("k.cbin"))]);
    assert!(
        err.contains("k.s:1:8: invalid UTF-8 at byte 7 (0xe2)"),
        "{err}"
    );
    let launch = dir.join("l.yaml");
    std::fs::write(&launch, b"program: k.s\ngrid: [1]\nblock: [1] # \xff\n").unwrap();
    let err = fails(&["run", s(&launch)]);
    assert!(
        err.contains("l.yaml:3:14: invalid UTF-8 at byte 36 (0xff)"),
        "{err}"
    );
}

#[test]
fn a_byte_order_mark_is_dropped_from_cu_s_and_yaml() {
    let dir = scratch("bom");
    const BOM: &str = "\u{feff}";
    let cu = dir.join("k.cu");
    std::fs::write(
        &cu,
        format!("{BOM}__global__ void k(int *a) {{ a[threadIdx.x] = 7; }}\n"),
    )
    .unwrap();
    let asm = dir.join("k.s");
    std::fs::write(&asm, format!("{BOM}.param a\ns2r r1, %tid.x\nshl r1, r1, 2\nldparam r2, a\nadd r2, r2, r1\nmovi r3, 7\nst.global [r2], r3\nexit\n")).unwrap();
    let config = dir.join("c.yaml");
    std::fs::write(&config, format!("{BOM}lanes: 4\nwarps: 1\n")).unwrap();
    for program in ["k.cu", "k.s"] {
        let launch = dir.join("l.yaml");
        std::fs::write(
            &launch,
            format!("{BOM}program: {program}\nconfig: c.yaml\ngrid: [1]\nblock: [4]\nargs:\n  - {{ name: a, buffer: i32, len: 4 }}\noutputs: [a]\n"),
        )
        .unwrap();
        let out = ok_with(&["run", s(&launch), "--json"], b"");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            v["outputs"]["a"],
            serde_json::json!([7, 7, 7, 7]),
            "{program}"
        );
    }
}

#[test]
fn control_characters_never_reach_the_terminal() {
    let dir = scratch("escape");
    let src = dir.join("k.s");
    std::fs::write(&src, "nop\n  bra x\x1b]0;pwned\x07\n").unwrap();
    let err = fails(&["asm", s(&src), "-o", s(&dir.join("k.cbin"))]);
    assert!(printable(&err), "{err:?}");
    assert!(err.contains("  bra x\\x1b]0;pwned\\x07\n"), "{err}");
    let cu = dir.join("k.cu");
    std::fs::write(&cu, "__global__ void k(int *a) {\n  a[0] = \x1b[2J;\n}\n").unwrap();
    let err = String::from_utf8(concord(&["compile", s(&cu), "-o", s(&dir.join("k.cbin"))]).stderr)
        .unwrap();
    assert!(printable(&err), "{err:?}");
    assert!(err.contains("a[0] = \\x1b[2J;"), "{err}");
    std::fs::write(dir.join("e.s"), "exit\n").unwrap();
    let launch = dir.join("l.yaml");
    std::fs::write(
        &launch,
        "program: e.s\ngrid: [1]\nblock: [1]\nargs:\n  - { name: \"a\\e[8m\", value: 1 }\noutputs: [\"a\\e[8m\"]\n",
    )
    .unwrap();
    let err = fails(&["run", s(&launch)]);
    assert!(printable(&err), "{err:?}");
    assert!(err.contains("`a\\x1b[8m` is a scalar"), "{err}");
    // A raw control character in the YAML text itself: refused by the YAML
    // reader, which knows only its byte offset; the message gives the line
    // and column as every other YAML error does.
    let raw = dir.join("raw.yaml");
    std::fs::write(&raw, "program: e.s\ngrid: [1\x1b]\nblock: [1]\n").unwrap();
    let err = fails(&["run", s(&raw)]);
    assert!(printable(&err), "{err:?}");
    assert!(
        err.contains("control characters are not allowed at line 2 column 9 (byte 21)"),
        "{err}"
    );
}

#[test]
fn a_10_mb_line_is_quoted_once() {
    let dir = scratch("long");
    let name = "x".repeat(10_000_000);
    let src = dir.join("k.s");
    std::fs::write(&src, format!("nop\n  add r1, r2, {name}\n")).unwrap();
    let err = fails(&["asm", s(&src), "-o", s(&dir.join("k.cbin"))]);
    assert!(err.len() < 1000, "{} bytes of stderr", err.len());
    let cu = dir.join("k.cu");
    std::fs::write(
        &cu,
        format!("__global__ void k(int *a) {{\n  a[0] = {name};\n}}\n"),
    )
    .unwrap();
    let out = concord(&["compile", s(&cu), "-o", s(&dir.join("k.cbin"))]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr.len() < 1000,
        "{} bytes of stderr",
        out.stderr.len()
    );
}

#[test]
fn standard_input_is_read_as_dash() {
    let dir = scratch("stdin");
    let out = dir.join("k.cbin");
    ok_with(&["asm", "-", "-o", s(&out)], b"exit\n");
    let listing = ok_with(&["disasm", "-"], &std::fs::read(&out).unwrap()).stdout;
    assert!(String::from_utf8(listing).unwrap().contains("    exit "));
    let err = fails_with(&["asm", "-", "-o", s(&out)], b"ad r1\n", &[]);
    assert!(
        err.starts_with("error: <stdin>:1:1: unknown mnemonic `ad`"),
        "{err}"
    );
    // Without -o there is no file name to derive one from.
    let o = concord_with(&["asm", "-"], b"exit\n", &[]);
    assert_eq!(o.status.code(), Some(2));
    // The cap holds for standard input, which has no size to check first.
    let err = fails_with(
        &["asm", "-", "-o", s(&out)],
        &vec![b' '; (1 << 20) + 1],
        &[("CONCORD_MAX_INPUT_MIB", "1")],
    );
    assert!(
        err.contains("<stdin>: at least 1048577 bytes is more than the limit of 1048576 bytes"),
        "{err}"
    );
}

/// `disasm FILE | asm -` gives `FILE` back, byte for byte.
fn round_trip(cbin: &Path) {
    let listing = ok_with(&["disasm", s(cbin)], b"").stdout;
    let again = cbin.with_extension("again.cbin");
    ok_with(&["asm", "-", "-o", s(&again)], &listing);
    assert!(
        std::fs::read(cbin).unwrap() == std::fs::read(&again).unwrap(),
        "{} changes through disasm | asm:\n{}",
        cbin.display(),
        String::from_utf8_lossy(&listing)
    );
}

#[test]
fn disasm_then_asm_reproduces_every_bundled_container() {
    let dir = scratch("roundtrip");
    let root = repo();
    let mut sources = Vec::new();
    for sub in ["kernels", "kernels/bench", "kernels/suite"] {
        for entry in std::fs::read_dir(root.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if matches!(path.extension().and_then(|e| e.to_str()), Some("s" | "cu")) {
                sources.push(path);
            }
        }
    }
    sources.sort();
    assert!(sources.len() >= 20, "{sources:?}");
    for (i, source) in sources.iter().enumerate() {
        let cbin = dir.join(format!("{i}.cbin"));
        let verb = if source.extension().unwrap() == "s" {
            "asm"
        } else {
            "compile"
        };
        ok_with(&[verb, s(source), "-o", s(&cbin)], b"");
        round_trip(&cbin);
    }
    // Compiled with a stack, predication and per-warp spill slots.
    for flags in [
        &["--regs", "6", "--spill", "divergence-aware"][..],
        &["--divergence", "predicate"][..],
    ] {
        let cbin = dir.join("flags.cbin");
        let mut args = vec!["compile", "kernels/suite/nqueens_stack.cu", "-o", s(&cbin)];
        args.extend_from_slice(flags);
        ok_with(&args, b"");
        round_trip(&cbin);
    }
    // Without `.entry` and without labels: no symbol at all.
    let cbin = dir.join("bare.cbin");
    ok_with(&["asm", "-", "-o", s(&cbin)], b"nop\nbra 3\nnop\nexit\n");
    round_trip(&cbin);
}
