//! The build cache against damage (issue 12): a truncated library, a
//! library swapped in from another build configuration, a manifest forged
//! to match it. Each is rebuilt or refused; none is ever run.
//!
//! The toy core of tests/fixtures (its header documents it) is built once
//! per configuration (plain and `--trace`) into the cache that
//! tests/verilator.rs uses too, and each test damages a copy of an entry in
//! a cache of its own.

use std::path::{Path, PathBuf};

use concord_testbench::verilator::cache::{self, Verification};
use concord_testbench::verilator::{host, BuildOptions, HarnessError, Rtl};

const FIXTURE: &str = include_str!("fixtures/concord_core_toy.v");

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
        Rtl::build(FIXTURE, &options(trace, &shared_cache())).unwrap_or_else(|e| panic!("{e}"));
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

/// The model works: host writes come back through the host read port.
fn works(rtl: &mut Rtl) {
    rtl.host_write(host::PARAM + 2, 0x1234_5678);
    assert_eq!(rtl.host_read(0x42), 0x1234_5678);
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
        cache::verify(&copy, key, FIXTURE),
        Verification::Damaged(why) if why.contains(&format!("has {} bytes, the manifest says {len}", len / 2))
    ));

    let mut rtl = Rtl::build(FIXTURE, &options(false, &root)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!rtl.cache_hit(), "rebuilt");
    assert_eq!(rtl.library_path(), lib);
    works(&mut rtl);
    assert!(matches!(
        cache::verify(&copy, key, FIXTURE),
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
        cache::verify(&copy, &key, FIXTURE),
        Verification::Damaged(_)
    ));

    let mut rtl = Rtl::build(FIXTURE, &options(false, &root)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!rtl.cache_hit(), "rebuilt");
    assert!(
        !rtl.traced(),
        "the plain build, not the swapped-in traced one"
    );
    assert_eq!(rtl.cache_key(), key);
    works(&mut rtl);
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
        cache::verify(&copy, &key, FIXTURE),
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
        cache::verify(&copy, &key, FIXTURE),
        Verification::Valid(_)
    ));

    let e = Rtl::build(FIXTURE, &options(false, &root)).unwrap_err();
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
