//! Launch descriptions: the documented contract, the memory image, the
//! random generator, and every rejection with its message.

use concord_isa::config::CoreConfig;
use concord_isa::container::{Entry, Kernel};
use concord_isa::launch::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// `exit` (opcode 46 in bits 27..22, guard `pt`).
const EXIT: u32 = 0x0B80_0000;

/// The example of docs/launch.md, word for word.
const CONTRACT: &str = "\
program: kernels/example.s        # assembly (.s) or container (.cbin); path relative to this file
entry: main                       # optional when there is one entry point
config: configs/default.yaml      # optional; the default core otherwise; relative to this file
grid: [2]                         # blocks, 1 to 3 dimensions
block: [64]                       # threads per block, 1 to 3 dimensions
args:                             # in parameter order; each is one 32-bit parameter word
  - { name: a, buffer: i32, data: [1, 2, 3] }            # inline
  - { name: b, buffer: u32, fill: { range: [0, 128] } }  # 0,1,2,...,127
  - { name: c, buffer: i32, len: 128 }                   # zeros
  - { name: r, buffer: i32, fill: { random: { seed: 7, min: -100, max: 100 } }, len: 128 }
  - { name: n, value: 128, type: i32 }                   # scalar
outputs: [c]                      # buffers reported after the run
watchdog: 10000000                # optional: max issued warp-instructions, on every model
";

/// A directory holding `kernels/example.s`, `kernels/other.cu` and
/// `configs/default.yaml` (8 lanes x 8 warps, so that the contract's block
/// of 64 threads fits). Shared by the tests, which only add files of their own.
fn workspace() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("concord-launch-test");
        std::fs::create_dir_all(dir.join("kernels")).unwrap();
        std::fs::create_dir_all(dir.join("configs")).unwrap();
        std::fs::write(dir.join("kernels/example.s"), ".entry main\n        exit\n").unwrap();
        std::fs::write(dir.join("kernels/bad.s"), ".entry main\n        exit r1\n").unwrap();
        std::fs::write(dir.join("kernels/other.cu"), "").unwrap();
        std::fs::write(dir.join("configs/default.yaml"), "lanes: 8\nwarps: 8\n").unwrap();
        dir
    })
    .clone()
}

fn kernel() -> Kernel {
    Kernel {
        code: vec![EXIT],
        entries: vec![Entry {
            name: "main".into(),
            pc: 0,
        }],
        ..Default::default()
    }
}

fn core64() -> CoreConfig {
    CoreConfig {
        warps: 8,
        ..CoreConfig::default()
    }
}

/// Parses `yaml` as `<workspace>/launch.yaml`.
fn parse(yaml: &str) -> Result<LaunchDescription, LaunchError> {
    let dir = workspace();
    LaunchDescription::from_yaml(yaml, &dir.join("launch.yaml"))
}

/// The error text without the leading `<workspace>/launch.yaml: `.
fn strip(e: &LaunchError) -> String {
    let text = e.to_string();
    let at = text
        .find("launch.yaml: ")
        .unwrap_or_else(|| panic!("no file in: {text}"));
    text[at + "launch.yaml: ".len()..].to_string()
}

fn parse_err(yaml: &str) -> String {
    strip(&parse(yaml).expect_err("accepted"))
}

/// `grid: [1]`, `block: [8]` and the given arguments.
fn with_args(args: &str) -> String {
    format!("program: kernels/example.s\ngrid: [1]\nblock: [8]\nargs:\n{args}")
}

#[test]
fn the_contract_example_parses() {
    let dir = workspace();
    let file = dir.join("launch.yaml");
    std::fs::write(&file, CONTRACT).unwrap();
    let d = LaunchDescription::load(&file).unwrap();
    assert_eq!(d.file, file);
    assert_eq!(d.program, dir.join("kernels/example.s"));
    assert_eq!(d.entry.as_deref(), Some("main"));
    assert_eq!(d.config, Some(dir.join("configs/default.yaml")));
    assert_eq!(d.grid, [2, 1, 1]);
    assert_eq!(d.block, [64, 1, 1]);
    assert_eq!(d.outputs, vec!["c".to_string()]);
    assert_eq!(d.watchdog, Some(10_000_000));
    let expected = vec![
        Arg {
            name: "a".into(),
            kind: ArgKind::Buffer {
                elem: ElemType::I32,
                len: 3,
                init: Init::Data(vec![1, 2, 3]),
            },
        },
        Arg {
            name: "b".into(),
            kind: ArgKind::Buffer {
                elem: ElemType::U32,
                len: 128,
                init: Init::Range { start: 0, end: 128 },
            },
        },
        Arg {
            name: "c".into(),
            kind: ArgKind::Buffer {
                elem: ElemType::I32,
                len: 128,
                init: Init::Zeros,
            },
        },
        Arg {
            name: "r".into(),
            kind: ArgKind::Buffer {
                elem: ElemType::I32,
                len: 128,
                init: Init::Random {
                    seed: 7,
                    min: -100,
                    max: 100,
                },
            },
        },
        Arg {
            name: "n".into(),
            kind: ArgKind::Scalar {
                ty: ElemType::I32,
                value: 128,
            },
        },
    ];
    assert_eq!(d.args, expected);
    assert_eq!(d.load_config().unwrap(), core64());
}

#[test]
fn the_contract_example_prepares_the_documented_memory_image() {
    let dir = workspace();
    let d = LaunchDescription::from_yaml(CONTRACT, &dir.join("launch.yaml")).unwrap();
    let config = d.load_config().unwrap();
    let p = d.prepare(&kernel(), &config).unwrap();
    assert_eq!(p.grid, [2, 1, 1]);
    assert_eq!(p.block, [64, 1, 1]);
    assert_eq!(p.entry_pc, 0);
    assert_eq!(p.watchdog, 10_000_000);
    assert_eq!(p.outputs, vec!["c".to_string()]);
    assert_eq!(p.global.len(), 1 << 20);
    // a: 3 x 4 bytes at 0x100; b: 512 bytes at 0x200 (aligned up from
    // 0x10c); c at 0x400; r at 0x600; then the scalar 128.
    assert_eq!(p.params, vec![0x100, 0x200, 0x400, 0x600, 128]);
    let buf = |name: &str, elem, addr, len| Buffer {
        name: name.into(),
        elem,
        addr,
        len,
    };
    assert_eq!(
        p.buffers,
        vec![
            buf("a", ElemType::I32, 0x100, 3),
            buf("b", ElemType::U32, 0x200, 128),
            buf("c", ElemType::I32, 0x400, 128),
            buf("r", ElemType::I32, 0x600, 128),
        ]
    );
    let g = &p.global;
    assert!(g[..0x100].iter().all(|&b| b == 0), "below 0x100 is zero");
    assert_eq!(&g[0x100..0x10c], &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
    assert!(g[0x10c..0x200].iter().all(|&b| b == 0), "padding is zero");
    assert_eq!(
        &g[0x200..0x210],
        &[0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]
    );
    assert_eq!(&g[0x3fc..0x400], &[127, 0, 0, 0]);
    assert!(g[0x400..0x600].iter().all(|&b| b == 0), "c is zeros");
    // r: -100 + SplitMix64(7).next_u64() % 201 for each element; the values
    // were computed with the Python script in `splitmix64_reference_values`:
    // -40, -82, 47, 86, ...
    assert_eq!(
        &g[0x600..0x610],
        &[
            0xd8, 0xff, 0xff, 0xff, // -40
            0xae, 0xff, 0xff, 0xff, // -82
            47, 0, 0, 0, //
            86, 0, 0, 0,
        ]
    );
    assert!(
        g[0x800..].iter().all(|&b| b == 0),
        "above the buffers is zero"
    );

    // read_outputs decodes the final image.
    let mut fin = p.global.clone();
    fin[0x400..0x404].copy_from_slice(&(-5i32).to_le_bytes());
    fin[0x5fc..0x600].copy_from_slice(&7i32.to_le_bytes());
    let out = p.read_outputs(&fin);
    assert_eq!(out.len(), 1);
    let (name, elem, values) = &out[0];
    assert_eq!((name.as_str(), *elem), ("c", ElemType::I32));
    assert_eq!(values.len(), 128);
    assert_eq!((values[0], values[1], values[127]), (-5, 0, 7));
    // A short image yields only the elements inside it, without panicking.
    assert_eq!(p.read_outputs(&fin[..0x408])[0].2, vec![-5, 0]);
    assert_eq!(p.read_outputs(&[])[0].2, Vec::<i64>::new());
}

#[test]
fn splitmix64_reference_values() {
    // Obtained independently with Python 3:
    //   M = (1 << 64) - 1
    //   def splitmix64(s, n):
    //       out = []
    //       for _ in range(n):
    //           s = (s + 0x9E3779B97F4A7C15) & M
    //           z = s
    //           z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    //           z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    //           out.append(z ^ (z >> 31))
    //       return out
    //   splitmix64(7, 4); [-100 + x % 201 for x in splitmix64(7, 8)]
    let mut g = SplitMix64::new(7);
    assert_eq!(g.next_u64(), 0x63cb_e1e4_5932_0dd7);
    assert_eq!(g.next_u64(), 0x044c_3cd7_f43c_661c);
    assert_eq!(g.next_u64(), 0xe698_4080_bab1_2a02);
    assert_eq!(g.next_u64(), 0x953a_eb70_673e_29cb);
    let mut g = SplitMix64::new(7);
    let v: Vec<i64> = (0..8).map(|_| g.next_in(-100, 100)).collect();
    assert_eq!(v, vec![-40, -82, 47, 86, -51, 17, 54, -7]);
    // Seed 0 gives the generator's published first outputs.
    let mut g = SplitMix64::new(0);
    assert_eq!(g.next_u64(), 0xe220_a839_7b1d_cdaf);
    assert_eq!(g.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    // The buffer initialiser uses the same sequence.
    let init = Init::Random {
        seed: 7,
        min: -100,
        max: 100,
    };
    assert_eq!(init.values(4).collect::<Vec<_>>(), vec![-40, -82, 47, 86]);
}

#[test]
fn element_types_store_at_their_natural_size() {
    let yaml = with_args(concat!(
        "  - { name: a, buffer: i8, data: [-1, 127, -128] }\n",
        "  - { name: b, buffer: u16, data: [65535, 1], len: 3 }\n",
        "  - { name: c, buffer: i16, fill: { range: [-2, 1] } }\n",
        "  - { name: d, buffer: u8, fill: { random: { seed: 1 } }, len: 300 }\n",
        "  - { name: e, value: -1, type: i8 }\n",
        "  - { name: f, value: 4294967295, type: u32 }\n",
        "  - { name: g, value: -7 }\n",
        "  - { name: h, value: 0x10, type: u16 }\n",
    ));
    let d = parse(&yaml).unwrap();
    let p = d.prepare(&kernel(), &CoreConfig::default()).unwrap();
    assert_eq!(
        p.params,
        vec![
            0x100,
            0x200,
            0x300,
            0x400,
            0xffff_ffff,
            0xffff_ffff,
            -7i32 as u32,
            16
        ]
    );
    let g = &p.global;
    assert_eq!(&g[0x100..0x104], &[0xff, 0x7f, 0x80, 0]);
    assert_eq!(&g[0x200..0x208], &[0xff, 0xff, 1, 0, 0, 0, 0, 0]);
    assert_eq!(&g[0x300..0x308], &[0xfe, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    // `random` without min/max covers the whole type.
    let mut rng = SplitMix64::new(1);
    let expect: Vec<u8> = (0..300).map(|_| rng.next_in(0, 255) as u8).collect();
    assert_eq!(&g[0x400..0x400 + 300], &expect[..]);
    assert_eq!(g[0x400 + 300], 0);

    for t in ElemType::ALL {
        assert_eq!(ElemType::from_name(t.name()), Some(t));
        assert_eq!(t.decode(&t.max().to_le_bytes()), Some(t.max()));
        assert_eq!(t.decode(&t.min().to_le_bytes()), Some(t.min()));
        assert_eq!(t.decode(&[0; 4][..t.bytes() as usize - 1]), None);
    }
    assert_eq!(ElemType::I16.decode(&[0x00, 0x80, 0xff]), Some(-32768));
    assert_eq!(ElemType::U16.decode(&[0x00, 0x80]), Some(32768));
    assert_eq!(ElemType::I8.word(-1), 0xffff_ffff);
    assert_eq!(ElemType::U8.word(255), 0xff);
}

#[test]
fn data_and_range_pad_with_zeros_up_to_len() {
    let yaml = with_args(concat!(
        "  - { name: a, buffer: i32, data: [5], len: 3 }\n",
        "  - { name: b, buffer: u8, fill: { range: [10, 12] }, len: 4 }\n",
        "  - { name: e, buffer: i32, data: [] }\n",
    ));
    let d = parse(&yaml).unwrap();
    let p = d.prepare(&kernel(), &CoreConfig::default()).unwrap();
    assert_eq!(
        &p.global[0x100..0x10c],
        &[5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(&p.global[0x200..0x205], &[10, 11, 0, 0, 0]);
    assert_eq!(p.buffers[2].len, 0);
    assert_eq!(p.buffers[2].addr, 0x300);
    assert_eq!(p.watchdog, DEFAULT_WATCHDOG);
}

#[test]
fn multi_dimensional_shapes() {
    let d = parse("program: kernels/example.s\ngrid: [2, 3, 4]\nblock: [4, 2]\n").unwrap();
    assert_eq!(d.grid, [2, 3, 4]);
    assert_eq!(d.block, [4, 2, 1]);
    let p = d.prepare(&kernel(), &CoreConfig::default()).unwrap();
    assert_eq!(p.grid_blocks(), 24);
    assert_eq!(p.block_threads(), 8);
    assert!(p.params.is_empty());
}

// ---------------------------------------------------------------------------
// Rejections by `from_yaml`.

#[test]
fn yaml_errors_keep_field_and_position() {
    let e = parse_err("program: kernels/example.s\ngrid: [1]\nblock: [8]\ngrids: [2]\n");
    assert!(
        e.starts_with("unknown field `grids`, expected one of") && e.contains("line 4 column 1"),
        "{e}"
    );
    let e = parse_err(&with_args("  - { name: a, buffer: i32, lenght: 4 }\n"));
    assert!(
        e.starts_with("args[0]: unknown field `lenght`") && e.contains("line 5"),
        "{e}"
    );
    let e = parse_err(&with_args(
        "  - { name: a, buffer: i32, len: 4 }\n  - { name: r, buffer: i32, len: 4, fill: { random: { sed: 7 } } }\n",
    ));
    assert!(
        e.starts_with("args[1].fill.random: unknown field `sed`") && e.contains("line 6"),
        "{e}"
    );
    let e = parse_err(&with_args(
        "  - { name: a, buffer: i32, fill: { ranges: [0, 1] } }\n",
    ));
    assert!(e.starts_with("args[0].fill: unknown field `ranges`"), "{e}");
    let e = parse_err("program: kernels/example.s\ngrid: [two]\nblock: [8]\n");
    assert!(
        e.starts_with("grid[0]: invalid type: string \"two\", expected u32")
            && e.contains("line 2"),
        "{e}"
    );
    let e = parse_err("program: kernels/example.s\ngrid: 2\nblock: [8]\n");
    assert!(
        e.starts_with("grid: invalid type: integer `2`, expected a sequence"),
        "{e}"
    );
    let e = parse_err(&with_args("  - { name: a, buffer: f32, len: 4 }\n"));
    assert!(
        e.starts_with("args[0].buffer: unknown variant `f32`"),
        "{e}"
    );
    let e = parse_err(&with_args("  - { name: a, value: 1, type: i64 }\n"));
    assert!(e.starts_with("args[0].type: unknown variant `i64`"), "{e}");
    let e = parse_err(&with_args(
        "  - { name: a, buffer: i32, fill: { range: [0, 1, 2] } }\n",
    ));
    assert!(e.starts_with("args[0].fill.range: invalid length 3"), "{e}");
    let e = parse_err("grid: [1]\nblock: [8]\n");
    assert!(e.starts_with("missing field `program`"), "{e}");
    let e = parse_err(&with_args("  - { buffer: i32, len: 4 }\n"));
    assert!(e.starts_with("args[0]: missing field `name`"), "{e}");
    let e = parse_err(&with_args("  - 3\n"));
    assert!(
        e.starts_with("args[0]: invalid type: integer `3`, expected an argument: a mapping"),
        "{e}"
    );
    let e = parse_err(&with_args("  - { name: a, buffer: i8, len: 3, fill: 4 }\n"));
    assert!(
        e.starts_with(
            "args[0].fill: invalid type: integer `4`, expected a fill: `{ range: [start, end] }`"
        ),
        "{e}"
    );
    let e = parse_err("- 1\n");
    assert!(
        e.starts_with(
            "invalid type: sequence, expected a launch description: a mapping with `program`"
        ),
        "{e}"
    );
    let e = parse_err("program: [\n");
    assert!(e.contains("line"), "{e}");
    assert_eq!(
        parse_err("  \n"),
        "the file is empty; a launch description needs at least `program`, `grid` and `block`"
    );
}

#[test]
fn argument_kind_errors() {
    assert_eq!(
        parse_err(&with_args("  - { name: a }\n")),
        "args[0]: an argument needs `buffer: <type>` (a buffer) or `value: <number>` (a scalar)"
    );
    assert_eq!(
        parse_err(&with_args("  - { name: a, buffer: i32, value: 3 }\n")),
        "args[0]: `buffer` and `value` cannot both be given: an argument is either a buffer or a scalar"
    );
    assert_eq!(
        parse_err(&with_args("  - { name: a, value: 3, len: 4 }\n")),
        "args[0].len: `len` belongs to buffers; a scalar argument has only `name`, `value` and `type`"
    );
    assert_eq!(
        parse_err(&with_args("  - { name: a, value: 3, data: [1] }\n")),
        "args[0].data: `data` belongs to buffers; a scalar argument has only `name`, `value` and `type`"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: a, buffer: i32, type: u8, len: 1 }\n"
        )),
        "args[0].type: `type` belongs to scalars; a buffer's element type is given by `buffer`"
    );
    assert_eq!(
        parse_err(&with_args("  - { name: a, buffer: i32 }\n")),
        "args[0]: a buffer needs `data`, `fill` or `len` (zeros)"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: a, buffer: i32, data: [1], fill: { range: [0, 1] } }\n"
        )),
        "args[0]: give `data` or `fill`, not both"
    );
    let exactly_one =
        "args[0].fill: give exactly one of `range: [start, end]` or `random: { seed, min, max }`";
    assert_eq!(
        parse_err(&with_args("  - { name: a, buffer: i32, fill: {} }\n")),
        exactly_one
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: a, buffer: i32, len: 2, fill: { range: [0, 1], random: { seed: 1 } } }\n"
        )),
        exactly_one
    );
}

#[test]
fn argument_value_errors() {
    assert_eq!(
        parse_err(&with_args(
            "  - { name: a, buffer: i32, data: [1, 2, 3], len: 2 }\n"
        )),
        "args[0].data: 3 values but `len` is 2"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: a, buffer: i32, len: 1 }\n  - { name: b, buffer: u8, data: [0, 255, 256] }\n"
        )),
        "args[1].data[2]: 256 does not fit u8 (0..=255)"
    );
    assert_eq!(
        parse_err(&with_args("  - { name: a, buffer: i16, data: [-32769] }\n")),
        "args[0].data[0]: -32769 does not fit i16 (-32768..=32767)"
    );
    assert_eq!(
        parse_err(&with_args("  - { name: a, buffer: u32, data: [-1] }\n")),
        "args[0].data[0]: -1 does not fit u32 (0..=4294967295)"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: a, buffer: u8, fill: { range: [0, 300] } }\n"
        )),
        "args[0].fill.range: 299 does not fit u8 (0..=255)"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: a, buffer: u8, fill: { range: [-1, 3] } }\n"
        )),
        "args[0].fill.range: -1 does not fit u8 (0..=255)"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: a, buffer: u8, fill: { range: [5, 3] } }\n"
        )),
        "args[0].fill.range: start 5 is greater than end 3"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: a, buffer: u8, fill: { range: [0, 8] }, len: 4 }\n"
        )),
        "args[0].fill.range: gives 8 values but `len` is 4"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: a, buffer: i32, len: 1 }\n  - { name: a2, buffer: i32, len: 1 }\n  - { name: r, buffer: i32, fill: { random: { seed: 7, min: -100, max: 100 } } }\n"
        )),
        "args[2].len: required with `fill: { random: ... }`"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: r, buffer: i8, len: 4, fill: { random: { seed: 7, min: -200 } } }\n"
        )),
        "args[0].fill.random.min: -200 does not fit i8 (-128..=127)"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: r, buffer: u16, len: 4, fill: { random: { seed: 7, max: 65536 } } }\n"
        )),
        "args[0].fill.random.max: 65536 does not fit u16 (0..=65535)"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: r, buffer: i32, len: 4, fill: { random: { seed: 7, min: 5, max: 4 } } }\n"
        )),
        "args[0].fill.random: min 5 is greater than max 4"
    );
    assert_eq!(
        parse_err(&with_args("  - { name: n, value: 128, type: i8 }\n")),
        "args[0].value: 128 does not fit i8 (-128..=127)"
    );
    assert_eq!(
        parse_err(&with_args(
            "  - { name: n, value: 4294967296, type: u32 }\n"
        )),
        "args[0].value: 4294967296 does not fit u32 (0..=4294967295)"
    );
    assert_eq!(
        parse_err(&with_args("  - { name: n, value: 2147483648 }\n")),
        "args[0].value: 2147483648 does not fit i32 (-2147483648..=2147483647)"
    );
}

#[test]
fn argument_name_and_output_errors() {
    assert_eq!(
        parse_err(&with_args(
            "  - { name: a, buffer: i32, len: 1 }\n  - { name: b, value: 1 }\n  - { name: a, value: 2 }\n"
        )),
        "args[2].name: duplicate argument name `a` (also args[0])"
    );
    assert_eq!(
        parse_err(&with_args("  - { name: '', value: 2 }\n")),
        "args[0].name: the name is empty"
    );
    let two = "  - { name: a, buffer: i32, len: 1 }\n  - { name: n, value: 1 }\n";
    assert_eq!(
        parse_err(&format!("{}outputs: [a, x]\n", with_args(two))),
        "outputs[1]: `x` is not an argument (arguments: a, n)"
    );
    assert_eq!(
        parse_err(&format!("{}outputs: [n]\n", with_args(two))),
        "outputs[0]: `n` is a scalar; only buffers can be outputs"
    );
    assert_eq!(
        parse_err(&format!("{}outputs: [a, a]\n", with_args(two))),
        "outputs[1]: `a` is already listed (outputs[0])"
    );
    assert_eq!(
        parse_err("program: kernels/example.s\ngrid: [1]\nblock: [8]\noutputs: [c]\n"),
        "outputs[0]: `c` is not an argument (arguments: none)"
    );
    let many: String = (0..17)
        .map(|i| format!("  - {{ name: p{i}, value: {i} }}\n"))
        .collect();
    assert_eq!(
        parse_err(&with_args(&many)),
        "args: 17 arguments, but a kernel has at most 16 parameter words"
    );
}

#[test]
fn shape_errors() {
    let shape = |grid: &str, block: &str| {
        parse_err(&format!(
            "program: kernels/example.s\ngrid: {grid}\nblock: {block}\n"
        ))
    };
    assert_eq!(shape("[]", "[8]"), "grid: give 1 to 3 dimensions, got 0");
    assert_eq!(
        shape("[1]", "[1, 1, 1, 1]"),
        "block: give 1 to 3 dimensions, got 4"
    );
    assert_eq!(
        shape("[1]", "[8, 0]"),
        "block[1]: an extent must be at least 1"
    );
    assert_eq!(shape("[0]", "[8]"), "grid[0]: an extent must be at least 1");
    let e = parse_err("program: kernels/example.s\nblock: [8]\n");
    assert!(e.starts_with("missing field `grid`"), "{e}");
}

#[test]
fn file_errors() {
    let dir = workspace();
    let file = dir.join("launch.yaml");
    let e =
        LaunchDescription::from_yaml("program: kernels/missing.s\ngrid: [1]\nblock: [8]\n", &file)
            .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: program: no such file: {}",
            file.display(),
            dir.join("kernels/missing.s").display()
        )
    );
    assert_eq!(
        parse_err("program: kernels\ngrid: [1]\nblock: [8]\n")
            .split(": ")
            .next(),
        Some("program")
    );
    assert!(parse_err("program: kernels\ngrid: [1]\nblock: [8]\n").contains("not a file"));
    assert_eq!(
        parse_err("program: ''\ngrid: [1]\nblock: [8]\n"),
        "program: the path is empty"
    );
    let e =
        parse_err("program: kernels/example.s\nconfig: configs/nope.yaml\ngrid: [1]\nblock: [8]\n");
    assert!(
        e.starts_with("config: no such file: ") && e.ends_with("nope.yaml"),
        "{e}"
    );
    assert_eq!(
        parse_err("program: kernels/example.s\nentry: ''\ngrid: [1]\nblock: [8]\n"),
        "entry: the entry name is empty"
    );
    assert_eq!(
        parse_err("program: kernels/example.s\ngrid: [1]\nblock: [8]\nwatchdog: 0\n"),
        "watchdog: must be at least 1"
    );
    // A `.cu` program is accepted by the description (the CLI compiles it).
    let d = parse("program: kernels/other.cu\ngrid: [1]\nblock: [8]\n").unwrap();
    assert!(d.program.ends_with("kernels/other.cu"));
    // An absolute program path is kept as it is.
    let abs = dir.join("kernels/example.s");
    let d = LaunchDescription::from_yaml(
        &format!("program: {}\ngrid: [1]\nblock: [8]\n", abs.display()),
        Path::new("elsewhere/launch.yaml"),
    )
    .unwrap();
    assert_eq!(d.program, abs);
    let missing = dir.join("nope.yaml");
    let e = LaunchDescription::load(&missing).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}: cannot read: ", missing.display())),
        "{e}"
    );
}

#[test]
fn load_program_by_extension() {
    let dir = workspace();
    let path = dir.join("k.cbin");
    kernel().save_file(&path).unwrap();
    assert_eq!(load_program(&path).unwrap(), kernel());
    std::fs::write(&path, b"CNCD\x07\x00").unwrap();
    assert_eq!(
        load_program(&path).unwrap_err().to_string(),
        format!(
            "{}: byte 4: unsupported container version 7 (this build reads 1..=2)",
            path.display()
        )
    );
    // `.s` goes through the assembler, whose diagnostics name the file.
    assert_eq!(
        load_program(&dir.join("kernels/example.s"))
            .unwrap()
            .entries,
        kernel().entries
    );
    assert_eq!(
        load_program(&dir.join("kernels/example.s")).unwrap().code,
        vec![EXIT]
    );
    let bad = dir.join("kernels/bad.s");
    let e = load_program(&bad).unwrap_err();
    assert!(matches!(e, LaunchError::Located(_)), "{e:?}");
    assert!(
        e.to_string().starts_with(&format!("{}:2:", bad.display())),
        "{e}"
    );
    let cu = dir.join("kernels/other.cu");
    assert_eq!(
        load_program(&cu).unwrap_err().to_string(),
        format!(
            "{}: unsupported program extension `.cu` (supported: `.s` assembly, `.cbin` kernel container)",
            cu.display()
        )
    );
    let bare = dir.join("kernels/example");
    assert_eq!(
        load_program(&bare).unwrap_err().to_string(),
        format!(
            "{}: the program has no extension (supported: `.s` assembly, `.cbin` kernel container)",
            bare.display()
        )
    );
    let missing = dir.join("missing.s");
    let e = load_program(&missing).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}: cannot read: ", missing.display())),
        "{e}"
    );
}

// ---------------------------------------------------------------------------
// Rejections by `prepare`.

fn prepare_err(yaml: &str, kernel: &Kernel, config: &CoreConfig) -> String {
    strip(
        &parse(yaml)
            .unwrap()
            .prepare(kernel, config)
            .expect_err("prepared"),
    )
}

const SIMPLE: &str = "program: kernels/example.s\ngrid: [1]\nblock: [8]\n";

#[test]
fn block_must_fit_the_core() {
    let dir = workspace();
    let d = LaunchDescription::from_yaml(CONTRACT, &dir.join("launch.yaml")).unwrap();
    d.prepare(&kernel(), &CoreConfig::default())
        .expect("the contract example fits the default core");
    let narrow = CoreConfig {
        warps: 4,
        ..CoreConfig::default()
    };
    let e = d.prepare(&kernel(), &narrow).unwrap_err();
    assert_eq!(
        strip(&e),
        "block: block of 64 threads does not fit the core: lanes × warps = 8 × 4 = 32; raise `warps` (or `lanes`) in the config"
    );
    let small = CoreConfig {
        lanes: 4,
        warps: 1,
        ..CoreConfig::default()
    };
    assert_eq!(
        prepare_err(
            "program: kernels/example.s\ngrid: [1]\nblock: [2, 2, 2]\n",
            &kernel(),
            &small
        ),
        "block: block of 8 threads does not fit the core: lanes × warps = 4 × 1 = 4; raise `warps` (or `lanes`) in the config"
    );
}

#[test]
fn buffers_must_fit_global_memory() {
    let config = CoreConfig {
        global_memory_bytes: 1024,
        ..CoreConfig::default()
    };
    let yaml = with_args(
        "  - { name: a, buffer: u8, len: 256 }\n  - { name: b, buffer: u8, len: 1 }\n  - { name: c, buffer: i32, len: 128 }\n",
    );
    assert_eq!(
        prepare_err(&yaml, &kernel(), &config),
        "args[2]: buffer `c` of 512 bytes at 0x300..0x500 does not fit in global memory of 1024 bytes (`global_memory_bytes`); raise `global_memory_bytes` in the config (buffers start at 0x100, each aligned to 256 bytes)"
    );
    // Exactly filling memory is fine.
    let yaml = with_args("  - { name: a, buffer: u8, len: 768 }\n");
    let p = parse(&yaml).unwrap().prepare(&kernel(), &config).unwrap();
    assert_eq!(p.global.len(), 1024);
}

#[test]
fn buffers_stay_below_the_per_thread_stacks() {
    // 4 lanes x 2 warps x 16 bytes: the stacks take 0xf80..0x1000 of 4 KiB,
    // the guard zone below them 0xf70..0xf80.
    let config = CoreConfig {
        lanes: 4,
        warps: 2,
        global_memory_bytes: 4096,
        ..CoreConfig::default()
    };
    let k = Kernel {
        stack_bytes: 16,
        ..kernel()
    };
    let yaml = with_args("  - { name: a, buffer: u8, len: 3696 }\n");
    let p = parse(&yaml).unwrap().prepare(&k, &config).unwrap();
    assert_eq!(p.buffer("a").unwrap().addr + 3696, 0xf70);
    let yaml = with_args("  - { name: a, buffer: u8, len: 3697 }\n");
    assert_eq!(
        prepare_err(&yaml, &k, &config),
        "args[0]: buffer `a` at 0x100..0xf71 overlaps the per-thread stacks and their guard zone at 0xf70..0x1000 (16 bytes per thread); raise `global_memory_bytes` in the config"
    );
    let k = Kernel {
        stack_bytes: 512,
        ..kernel()
    };
    assert_eq!(
        prepare_err(&with_args("  - { name: n, value: 1 }\n"), &k, &config),
        "program: the kernel's per-thread stacks and their guard zone (512 bytes x (8 threads + 1) = 4608 bytes) do not fit in global memory of 4096 bytes (`global_memory_bytes`)"
    );
}

#[test]
fn kernel_must_fit_the_core() {
    let mut k = kernel();
    k.code = vec![EXIT; 17];
    let config = CoreConfig {
        imem_words: 16,
        registers: 8,
        predicates: 4,
        shared_memory_bytes: 1024,
        ..CoreConfig::default()
    };
    assert_eq!(
        prepare_err(SIMPLE, &k, &config),
        "program: the kernel has 17 words of code but the instruction memory holds 16 (`imem_words`); raise `imem_words` in the config"
    );
    let mut k = kernel();
    k.regs_used = 9;
    assert_eq!(
        prepare_err(SIMPLE, &k, &config),
        "program: the kernel uses 9 general registers but the core has 8 (`registers`); raise `registers` in the config"
    );
    let mut k = kernel();
    k.preds_used = 5;
    assert_eq!(
        prepare_err(SIMPLE, &k, &config),
        "program: the kernel uses 5 predicate registers but the core has 4 (`predicates`); raise `predicates` in the config"
    );
    let mut k = kernel();
    k.shared_bytes = 1028;
    assert_eq!(
        prepare_err(SIMPLE, &k, &config),
        "program: the kernel uses 1028 bytes of shared memory per block but the core has 1024 (`shared_memory_bytes`); raise `shared_memory_bytes` in the config"
    );
    let mut k = kernel();
    k.regs_used = 8;
    k.preds_used = 4;
    k.shared_bytes = 1024;
    k.code = vec![EXIT; 16];
    parse(SIMPLE).unwrap().prepare(&k, &config).unwrap();
    // An invalid kernel or config is reported, not run.
    let mut k = kernel();
    k.entries.clear();
    let e = prepare_err(SIMPLE, &k, &config);
    assert!(
        e.starts_with("program: ")
            && e.ends_with("example.s: entries: the kernel has no entry point"),
        "{e}"
    );
    let bad = CoreConfig {
        warps: 0,
        ..CoreConfig::default()
    };
    assert_eq!(
        prepare_err(SIMPLE, &kernel(), &bad),
        "config: config field `warps`: 0 is outside 1..=16"
    );
}

#[test]
fn entry_errors() {
    let mut k = kernel();
    k.code.push(EXIT);
    k.entries.push(Entry {
        name: "second".into(),
        pc: 1,
    });
    assert_eq!(
        prepare_err(SIMPLE, &k, &CoreConfig::default()),
        "entry: the kernel has 2 entry points (main, second); name the one to run"
    );
    let yaml = "program: kernels/example.s\nentry: third\ngrid: [1]\nblock: [8]\n";
    assert_eq!(
        prepare_err(yaml, &k, &CoreConfig::default()),
        "entry: no entry point named `third`; the kernel has: main, second"
    );
    let yaml = "program: kernels/example.s\nentry: second\ngrid: [1]\nblock: [8]\n";
    let p = parse(yaml)
        .unwrap()
        .prepare(&k, &CoreConfig::default())
        .unwrap();
    assert_eq!(p.entry_pc, 1);
}

#[test]
fn declared_parameters_must_match_the_arguments() {
    let mut k = kernel();
    k.params = vec!["a".into(), "n".into()];
    let yaml = with_args("  - { name: a, buffer: i32, len: 1 }\n  - { name: n, value: 1 }\n");
    parse(&yaml)
        .unwrap()
        .prepare(&k, &CoreConfig::default())
        .unwrap();
    let yaml = with_args("  - { name: n, value: 1 }\n  - { name: a, buffer: i32, len: 1 }\n");
    assert_eq!(
        prepare_err(&yaml, &k, &CoreConfig::default()),
        "args: the kernel's parameters are (a, n) but the arguments are (n, a); give one argument per parameter, in order, with the same names"
    );
    let yaml = with_args("  - { name: a, buffer: i32, len: 1 }\n");
    assert_eq!(
        prepare_err(&yaml, &k, &CoreConfig::default()),
        "args: the kernel's parameters are (a, n) but the arguments are (a); give one argument per parameter, in order, with the same names"
    );
    assert_eq!(
        prepare_err(SIMPLE, &k, &CoreConfig::default()),
        "args: the kernel's parameters are (a, n) but the arguments are (none); give one argument per parameter, in order, with the same names"
    );
}

#[test]
fn descriptions_built_in_code_are_checked_too() {
    let mut d = parse(SIMPLE).unwrap();
    d.grid = [0, 1, 1];
    assert_eq!(
        strip(&d.prepare(&kernel(), &CoreConfig::default()).unwrap_err()),
        "grid[0]: an extent must be at least 1"
    );
    d.grid = [1, 1, 1];
    d.args = (0..17)
        .map(|i| Arg {
            name: format!("p{i}"),
            kind: ArgKind::Scalar {
                ty: ElemType::I32,
                value: i,
            },
        })
        .collect();
    assert_eq!(
        strip(&d.prepare(&kernel(), &CoreConfig::default()).unwrap_err()),
        "args: 17 arguments, but a kernel has at most 16 parameter words"
    );
    d.args = vec![Arg {
        name: "a".into(),
        kind: ArgKind::Buffer {
            elem: ElemType::U8,
            len: 2,
            init: Init::Data(vec![1, 2, 3]),
        },
    }];
    assert_eq!(
        strip(&d.prepare(&kernel(), &CoreConfig::default()).unwrap_err()),
        "args[0].data: 3 values but `len` is 2"
    );
}

// ---------------------------------------------------------------------------
// The configurations shipped in `configs/`.

fn repo_config(name: &str) -> (String, CoreConfig) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../configs")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let config = CoreConfig::load(&path).unwrap();
    (text, config)
}

#[test]
fn shipped_configs() {
    let (text, default) = repo_config("default.yaml");
    assert_eq!(default, CoreConfig::default());
    // default.yaml spells out every field.
    let given: serde_yaml::Mapping = serde_yaml::from_str(&text).unwrap();
    let all: serde_yaml::Mapping = serde_yaml::from_str(&CoreConfig::default().to_yaml()).unwrap();
    let keys = |m: &serde_yaml::Mapping| {
        let mut k: Vec<String> = m.keys().map(|k| k.as_str().unwrap().to_string()).collect();
        k.sort();
        k
    };
    assert_eq!(keys(&given), keys(&all));
    let (_, small) = repo_config("small.yaml");
    assert_eq!((small.lanes, small.warps), (4, 1));
    let (_, wide) = repo_config("wide.yaml");
    assert_eq!((wide.lanes, wide.warps), (32, 8));
}
