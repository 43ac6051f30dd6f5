//! Reading input files (`concord_isa::input`) through every loader: only
//! regular files, a size cap checked before reading, UTF-8 errors at their
//! byte offset and line:column, a leading byte-order mark dropped, and
//! control characters from files escaped in every message.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use concord_isa::config::CoreConfig;
use concord_isa::container::{Entry, Kernel};
use concord_isa::input::{self, Kind, TEXT_LIMIT};
use concord_isa::launch::{load_program, LaunchDescription};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("concord-input-test")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `f` on another thread and fails if it takes longer than 10 s (a
/// blocked open or an endless read).
fn quickly<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|_| panic!("{what} did not return within 10 s"))
}

/// No character a terminal acts on.
fn printable(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
}

const EXIT: u32 = 0x0B80_0000;

#[test]
fn a_fifo_is_refused_without_blocking() {
    let d = dir("fifo");
    for name in ["c.yaml", "l.yaml", "k.s", "k.cbin"] {
        let fifo = d.join(name);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
    }
    let shown = |name: &str| d.join(name).display().to_string();
    let expected = |name: &str, what: &str| {
        format!(
            "{}: is a FIFO (named pipe); {what} must be a regular file",
            shown(name)
        )
    };
    let path = d.join("c.yaml");
    let e = quickly("config", move || CoreConfig::load(&path).unwrap_err());
    assert_eq!(e.to_string(), expected("c.yaml", "a core configuration"));
    let path = d.join("l.yaml");
    let e = quickly("launch", move || {
        LaunchDescription::load(&path).unwrap_err()
    });
    assert_eq!(e.to_string(), expected("l.yaml", "a launch description"));
    let path = d.join("k.s");
    let e = quickly("assembly", move || load_program(&path).unwrap_err());
    assert_eq!(e.to_string(), expected("k.s", "an assembly source"));
    let path = d.join("k.cbin");
    let e = quickly("container", move || Kernel::load_file(&path).unwrap_err());
    assert_eq!(e.to_string(), expected("k.cbin", "a kernel container"));
}

#[test]
fn directories_and_devices_are_refused_by_what_they_are() {
    let d = dir("kinds");
    let e = CoreConfig::load(&d).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}: is a directory; a core configuration must be a regular file",
            d.display()
        )
    );
    // `/dev/zero` never ends: refused before the first byte.
    let e = quickly("/dev/zero", || {
        input::read_text(Path::new("/dev/zero"), Kind::Assembly).unwrap_err()
    });
    assert_eq!(
        e.to_string(),
        "/dev/zero: is a character device; an assembly source must be a regular file"
    );
    let e = Kernel::load_file(Path::new("/dev/null"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "/dev/null: is a character device; a kernel container must be a regular file"
    );
    // A link to a regular file is read.
    let target = d.join("real.yaml");
    std::fs::write(&target, "lanes: 16\n").unwrap();
    let link = d.join("link.yaml");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_eq!(CoreConfig::load(&link).unwrap().lanes, 16);
}

#[test]
fn an_oversized_file_is_refused_before_it_is_read() {
    let d = dir("size");
    // A sparse file of 1 GiB: refused by its size, nothing read.
    let big = d.join("big.yaml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let path = big.clone();
    let e = quickly("1 GiB config", move || CoreConfig::load(&path).unwrap_err());
    assert_eq!(
        e.to_string(),
        format!(
            "{}: 1073741824 bytes is more than the limit of 16777216 bytes (16 MiB) for a core configuration; set CONCORD_MAX_INPUT_MIB (in MiB) to raise it",
            big.display()
        )
    );
    let path = big.clone();
    let e = quickly("1 GiB launch", move || {
        LaunchDescription::load(&path).unwrap_err()
    });
    assert!(e.to_string().contains("more than the limit"), "{e}");
    // Text: exactly the cap is read, one byte more is not.
    let at_cap = d.join("cap.s");
    std::fs::File::create(&at_cap)
        .unwrap()
        .set_len(TEXT_LIMIT)
        .unwrap();
    assert_eq!(
        input::read_bytes(&at_cap, Kind::Assembly).unwrap().len() as u64,
        TEXT_LIMIT
    );
    std::fs::File::create(&at_cap)
        .unwrap()
        .set_len(TEXT_LIMIT + 1)
        .unwrap();
    let e = load_program(&at_cap).unwrap_err().to_string();
    assert!(e.contains("16777217 bytes is more than the limit"), "{e}");
    // Containers: the largest instruction memory on top of the text cap.
    let cbin = d.join("big.cbin");
    std::fs::File::create(&cbin)
        .unwrap()
        .set_len(input::CONTAINER_LIMIT + 1)
        .unwrap();
    let e = Kernel::load_file(&cbin).unwrap_err().to_string();
    assert!(
        e.contains("more than the limit of 17039360 bytes (16.25 MiB) for a kernel container"),
        "{e}"
    );
    let e = load_program(&cbin).unwrap_err().to_string();
    assert!(e.contains("more than the limit"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn invalid_utf8_is_reported_at_its_byte_offset_line_and_column() {
    let d = dir("utf8");
    let s = d.join("k.s");
    std::fs::write(&s, b"nop\n  add r1, \xff r2\n").unwrap();
    assert_eq!(
        load_program(&s).unwrap_err().to_string(),
        format!(
            "{}:2:11: invalid UTF-8 at byte 14 (0xff); an assembly source must be UTF-8 text",
            s.display()
        )
    );
    let c = d.join("c.yaml");
    std::fs::write(&c, b"lanes: 8\nwarps: \xc3\x28\n").unwrap();
    assert_eq!(
        CoreConfig::load(&c).unwrap_err().to_string(),
        format!(
            "{}:2:8: invalid UTF-8 at byte 16 (0xc3); a core configuration must be UTF-8 text",
            c.display()
        )
    );
    let l = d.join("l.yaml");
    // `é` counts as one column.
    std::fs::write(
        &l,
        "program: é.s\n"
            .as_bytes()
            .iter()
            .copied()
            .chain(*b"grid: [\x80]\n")
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    assert_eq!(
        LaunchDescription::load(&l).unwrap_err().to_string(),
        format!(
            "{}:2:8: invalid UTF-8 at byte 21 (0x80); a launch description must be UTF-8 text",
            l.display()
        )
    );
}

#[test]
fn a_leading_byte_order_mark_is_dropped_from_every_text_input() {
    let d = dir("bom");
    let s = d.join("k.s");
    std::fs::write(&s, b"\xEF\xBB\xBFexit\n").unwrap();
    assert_eq!(load_program(&s).unwrap().code, vec![EXIT]);
    let c = d.join("c.yaml");
    std::fs::write(&c, b"\xEF\xBB\xBFlanes: 16\n").unwrap();
    assert_eq!(CoreConfig::load(&c).unwrap().lanes, 16);
    let l = d.join("l.yaml");
    std::fs::write(&l, b"\xEF\xBB\xBFprogram: k.s\ngrid: [1]\nblock: [4]\n").unwrap();
    assert_eq!(LaunchDescription::load(&l).unwrap().block, [4, 1, 1]);
    // Elsewhere it is a character like any other: the assembler rejects it,
    // escaped.
    std::fs::write(&s, "exit\n\u{feff}exit\n").unwrap();
    let e = load_program(&s).unwrap_err().to_string();
    assert!(e.contains(":2:1: ") && e.contains("\\u{feff}"), "{e}");
}

#[test]
fn control_characters_from_files_are_escaped_in_messages() {
    let d = dir("escape");
    // Launch: a duplicate argument name holding an escape sequence.
    let l = d.join("l.yaml");
    std::fs::write(d.join("k.s"), "exit\n").unwrap();
    std::fs::write(
        &l,
        "program: k.s\ngrid: [1]\nblock: [1]\nargs:\n  - { name: \"a\\e[2J\", value: 1 }\n  - { name: \"a\\e[2J\", value: 2 }\n",
    )
    .unwrap();
    let e = LaunchDescription::load(&l).unwrap_err().to_string();
    assert!(printable(&e), "{e:?}");
    assert!(
        e.ends_with("args[1].name: duplicate argument name `a\\x1b[2J` (also args[0])"),
        "{e}"
    );
    // Config: an unknown field, quoted by the YAML parser.
    let c = d.join("c.yaml");
    std::fs::write(&c, "\"lanes\\e]0;owned\\a\": 8\n").unwrap();
    let e = CoreConfig::load(&c).unwrap_err().to_string();
    assert!(printable(&e), "{e:?}");
    assert!(e.contains("lanes\\x1b]0;owned\\x07"), "{e}");
    // Container: a duplicate entry name.
    let k = Kernel {
        code: vec![EXIT],
        entries: vec![
            Entry {
                name: "k\x1b[5m".into(),
                pc: 0,
            },
            Entry {
                name: "k\x1b[5m".into(),
                pc: 0,
            },
        ],
        ..Kernel::default()
    };
    let e = Kernel::from_bytes(&k.to_bytes()).unwrap_err().to_string();
    assert!(printable(&e), "{e:?}");
    assert!(e.contains("duplicate entry name `k\\x1b[5m`"), "{e}");
    // An entry name asked for by a launch.
    let k = Kernel {
        code: vec![EXIT],
        entries: vec![Entry {
            name: "main".into(),
            pc: 0,
        }],
        ..Kernel::default()
    };
    let e = k.entry(Some("x\x07y")).unwrap_err().to_string();
    assert_eq!(e, "no entry point named `x\\x07y`; the kernel has: main");
    // A file name.
    let odd = d.join("odd\x1b.yaml");
    let e = CoreConfig::load(&odd).unwrap_err().to_string();
    assert!(
        printable(&e) && e.contains("odd\\x1b.yaml: cannot read: "),
        "{e}"
    );
}
