//! The build cache against damage (issue 12): a truncated library, a
//! library swapped in from another build configuration, a manifest forged
//! to match it. Each is rebuilt or refused; none is ever run.
//!
//! The toy core of `tests/toy` is built once per configuration (plain and
//! `--trace`) into a cache shared by the tests, and each test damages a
//! copy of an entry in a cache of its own.

mod toy;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use concord_testbench::verilator::cache::{self, Verification};
use concord_testbench::verilator::{BuildOptions, HarnessError};

/// The toy's Verilog, generated once.
fn fixture() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(toy::verilog)
}

fn shared_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("concord-rtl-cache")
}

fn options(trace: bool, dir: &Path) -> BuildOptions {
    BuildOptions {
        trace,
        cache_dir: Some(dir.to_path_buf()),
        ..BuildOptions::default()
    }
}

/// The entry directory of the fixture's build (built or found).
fn entry(trace: bool) -> PathBuf {
    let rtl =
        toy::build(fixture(), &options(trace, &shared_cache())).unwrap_or_else(|e| panic!("{e}"));
    rtl.library_path().parent().unwrap().to_path_buf()
}

/// A fresh cache holding a copy of `entry`, and the copy.
fn copy_into_fresh_cache(entry: &Path, name: &str) -> (PathBuf, PathBuf) {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("rtl-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let copy = root.join(entry.file_name().unwrap());
    std::fs::create_dir_all(&copy).unwrap();
    for f in std::fs::read_dir(entry).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), copy.join(f.file_name())).unwrap();
    }
    (root, copy)
}

#[test]
fn a_truncated_library_is_rebuilt_never_loaded() {
    let (root, copy) = copy_into_fresh_cache(&entry(false), "truncated");
    let lib = copy.join(cache::LIBRARY_FILE);
    let len = std::fs::metadata(&lib).unwrap().len();
    // Cut where a disk filled up or a copy stopped: the ELF headers are
    // intact, the code they map is not there (loading it was a SIGBUS).
    let f = std::fs::OpenOptions::new().write(true).open(&lib).unwrap();
    f.set_len(len / 2).unwrap();
    drop(f);
    let key = copy.file_name().unwrap().to_str().unwrap();
    assert!(matches!(
        cache::verify(&copy, key, fixture()),
        Verification::Damaged(why) if why.contains(&format!("has {} bytes, the manifest says {len}", len / 2))
    ));

    let mut rtl = toy::build(fixture(), &options(false, &root)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!rtl.cache_hit(), "rebuilt");
    assert_eq!(rtl.library_path(), lib);
    toy::works(&mut rtl);
    assert!(matches!(
        cache::verify(&copy, key, fixture()),
        Verification::Valid(_)
    ));
    drop(rtl);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_library_swapped_in_from_another_configuration_is_rebuilt() {
    // The plain build's entry with the traced build's library (the `--no-lockstep`
    // run that printed "SIMD efficiency 195.8%" ran such a swap).
    let traced = entry(true);
    let (root, copy) = copy_into_fresh_cache(&entry(false), "swapped");
    std::fs::copy(
        traced.join(cache::LIBRARY_FILE),
        copy.join(cache::LIBRARY_FILE),
    )
    .unwrap();
    let key = copy.file_name().unwrap().to_str().unwrap().to_string();
    assert!(matches!(
        cache::verify(&copy, &key, fixture()),
        Verification::Damaged(_)
    ));

    let mut rtl = toy::build(fixture(), &options(false, &root)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!rtl.cache_hit(), "rebuilt");
    assert!(
        !rtl.traced(),
        "the plain build, not the swapped-in traced one"
    );
    assert_eq!(rtl.cache_key(), key);
    toy::works(&mut rtl);
    drop(rtl);

    // The whole entry swapped (library, manifest and text): the manifest
    // names the other key. (Each file replaced, not overwritten: this
    // process still maps the rebuilt library.)
    for f in std::fs::read_dir(&traced).unwrap() {
        let f = f.unwrap();
        let _ = std::fs::remove_file(copy.join(f.file_name()));
        std::fs::copy(f.path(), copy.join(f.file_name())).unwrap();
    }
    assert!(matches!(
        cache::verify(&copy, &key, fixture()),
        Verification::Damaged(why) if why.contains("manifest is for the key")
    ));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_swapped_library_with_a_forged_manifest_is_caught_by_its_own_key() {
    let traced = entry(true);
    let (root, copy) = copy_into_fresh_cache(&entry(false), "forged");
    let key = copy.file_name().unwrap().to_str().unwrap().to_string();
    let traced_key = traced.file_name().unwrap().to_str().unwrap().to_string();
    // The traced library, and a manifest edited to give its size and hash
    // under the plain key: every check before loading passes.
    std::fs::copy(
        traced.join(cache::LIBRARY_FILE),
        copy.join(cache::LIBRARY_FILE),
    )
    .unwrap();
    let traced_manifest = std::fs::read_to_string(traced.join(cache::MANIFEST_FILE)).unwrap();
    std::fs::write(
        copy.join(cache::MANIFEST_FILE),
        traced_manifest.replace(&traced_key, &key),
    )
    .unwrap();
    assert!(matches!(
        cache::verify(&copy, &key, fixture()),
        Verification::Valid(_)
    ));

    let e = toy::build(fixture(), &options(false, &root)).unwrap_err();
    match &e {
        HarnessError::Identity {
            found, expected, ..
        } => {
            assert_eq!(found, &traced_key);
            assert_eq!(expected, &key);
        }
        other => panic!("{other}"),
    }
    assert!(e.to_string().contains("the entry has been removed"), "{e}");
    assert!(!copy.exists(), "the next run rebuilds it");
    let _ = std::fs::remove_dir_all(&root);
}
