//! The cases of the input fuzzer: mutations of the bundled files and
//! generated deep and long inputs, per input format.

use std::path::{Path, PathBuf};

use concord_isa::launch::SplitMix64;

/// The input formats `concord` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Assembly,
    Container,
    Source,
    Launch,
    Config,
}

impl Format {
    pub const ALL: [Format; 5] = [
        Format::Assembly,
        Format::Container,
        Format::Source,
        Format::Launch,
        Format::Config,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Assembly => "asm",
            Format::Container => "cbin",
            Format::Source => "cu",
            Format::Launch => "launch",
            Format::Config => "config",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// One fuzz case: an input file and the command that reads it. In `args`,
/// `{in}` stands for the input's path and `{out}` for an output path in the
/// case's directory that must not exist after a failed command.
pub struct Case {
    pub file_name: &'static str,
    pub bytes: Vec<u8>,
    pub args: Vec<String>,
    /// What produced the bytes, for the failure report.
    pub how: String,
}

/// The bundled files the mutations start from.
pub struct Seeds {
    pub assembly: Vec<(String, Vec<u8>)>,
    pub containers: Vec<(String, Vec<u8>)>,
    pub sources: Vec<(String, Vec<u8>)>,
    pub launches: Vec<(String, Vec<u8>)>,
    pub configs: Vec<(String, Vec<u8>)>,
}

fn read_dir_with(
    dir: &Path,
    extension: &str,
    keep: impl Fn(&str) -> bool,
) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .filter(|p| keep(&p.file_name().unwrap().to_string_lossy()))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

/// Makes the relative `program:` and `config:` paths of a launch absolute,
/// so that the launch still finds them from the case's directory.
fn absolute_paths(launch: &[u8], dir: &Path) -> Vec<u8> {
    let text = String::from_utf8_lossy(launch);
    let mut out = String::new();
    for line in text.lines() {
        let mut replaced = None;
        for key in ["program: ", "config: "] {
            if let Some(rest) = line.strip_prefix(key) {
                let path = rest.trim();
                if !path.starts_with('/') {
                    replaced = Some(format!("{key}{}", dir.join(path).display()));
                }
            }
        }
        out.push_str(replaced.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out.into_bytes()
}

impl Seeds {
    /// `containers` are built by the caller (by `concord asm` and `concord
    /// compile`), so that they are exactly what the tools write.
    pub fn load(repo: &Path, containers: Vec<(String, Vec<u8>)>) -> Seeds {
        let kernels = repo.join("kernels");
        let suite = kernels.join("suite");
        let mut assembly = read_dir_with(&kernels, "s", |_| true);
        assembly.extend(read_dir_with(&kernels.join("bench"), "s", |_| true));
        let sources = read_dir_with(&suite, "cu", |_| true);
        // Small launches only: a mutated launch runs on the functional model.
        let mut launches = read_dir_with(&kernels, "yaml", |_| true);
        launches.extend(read_dir_with(&suite, "yaml", |n| {
            n.ends_with("-small.yaml")
        }));
        for (name, bytes) in &mut launches {
            let dir = Path::new(name.as_str()).parent().unwrap().to_path_buf();
            *bytes = absolute_paths(bytes, &dir);
        }
        let configs = read_dir_with(&repo.join("configs"), "yaml", |_| true);
        Seeds {
            assembly,
            containers,
            sources,
            launches,
            configs,
        }
    }
}

/// The random source of one case.
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn byte(&mut self) -> u8 {
        self.0.next_u64() as u8
    }
    /// A size that is usually small and sometimes very large.
    fn size(&mut self) -> usize {
        *self.pick(&[1, 2, 10, 100, 1_000, 10_000, 50_000])
    }
}

/// Bytes that parsers treat specially, spliced in by the mutations.
const HOSTILE: &[&[u8]] = &[
    b"\0",
    b"\x1b[31m",
    b"\xff\xfe",
    b"\xef\xbb\xbf",
    b"\xc3",
    b"\r",
    b"\t",
    b"\n\n\n",
    b"\\",
    b"\"",
    b"'",
    b"-1",
    b"4294967296",
    b"-2147483649",
    b"99999999999999999999999999",
    b"0x",
    b"0xffffffffffffffff",
    b"1e999",
    b"nan",
];

/// Words of each format, spliced in by the mutations.
fn dictionary(format: Format) -> &'static [&'static str] {
    match format {
        Format::Assembly => &[
            "add",
            "li",
            "ld.global",
            "st.shared",
            "bra",
            "bra.any",
            "call",
            "ret",
            "exit",
            "bar.sync",
            "setp.lt",
            "@p1",
            "@!p7",
            "r31",
            "r32",
            "p8",
            "[r1+4]",
            "[r1-99999]",
            ".entry",
            ".param",
            ".stack",
            ".shared",
            ".stack 0",
            ".stack 4294967292",
            ":",
            ",",
            "%tid.x",
            "%clock",
            "label",
            "0x7fffffff",
            ";",
        ],
        Format::Container => &[],
        Format::Source => &[
            "__global__",
            "__device__",
            "__shared__",
            "int",
            "unsigned",
            "bool",
            "void",
            "*",
            "[",
            "]",
            "(",
            ")",
            "{",
            "}",
            ";",
            ",",
            "if",
            "else",
            "for",
            "while",
            "do",
            "return",
            "break",
            "continue",
            "__syncthreads()",
            "atomicAdd",
            "threadIdx.x",
            "blockIdx.x",
            "#define",
            "#undef",
            "#include",
            "#if",
            "#endif",
            "##",
            "#",
            "/*",
            "*/",
            "//",
            "&&",
            "||",
            "?",
            ":",
            "<<",
            ">>",
            "/",
            "%",
            "0x80000000",
            "2147483648",
            "__any_sync(0xffffffff,",
            "recurse(",
            "sizeof",
        ],
        Format::Launch => &[
            "program:",
            "grid:",
            "block:",
            "args:",
            "outputs:",
            "entry:",
            "config:",
            "watchdog:",
            "- ",
            "{",
            "}",
            "[",
            "]",
            ":",
            "&a",
            "*a",
            "<<: *a",
            "!!binary",
            "~",
            "null",
            "buffer:",
            "value:",
            "len:",
            "data:",
            "fill:",
            "range:",
            "random:",
            "seed:",
            "i8",
            "u32",
            "4294967295",
            "65536",
            "0",
            "---",
            "...",
        ],
        Format::Config => &[
            "lanes:",
            "warps:",
            "registers:",
            "predicates:",
            "shared_memory_bytes:",
            "shared_banks:",
            "imem_words:",
            "call_depth_bits:",
            "global_memory_bytes:",
            "global_latency:",
            "global_line_bytes:",
            "arbitration:",
            "depth_pc",
            "pc_only",
            "4294967295",
            "0",
            "-1",
            "33",
            "65536",
            "~",
            "[",
            "{",
            ":",
            "&a",
            "*a",
            "---",
        ],
    }
}

/// One random edit of `bytes`.
fn mutate(rng: &mut Rng, format: Format, bytes: &mut Vec<u8>, others: &[(String, Vec<u8>)]) {
    let len = bytes.len();
    let at = rng.below(len + 1);
    match rng.below(9) {
        0 if len > 0 => {
            let i = rng.below(len);
            bytes[i] ^= 1 << rng.below(8);
        }
        1 => bytes.insert(at, rng.byte()),
        2 if len > 0 => {
            let end = (at + 1 + rng.below(64)).min(len);
            bytes.drain(at.min(end)..end);
        }
        3 if len > 0 => {
            // Repeat a slice: long inputs.
            let start = rng.below(len);
            let end = (start + 1 + rng.below(40)).min(len);
            let slice = bytes[start..end].to_vec();
            let times = rng.size().min(20_000);
            let insert: Vec<u8> = slice
                .iter()
                .copied()
                .cycle()
                .take(slice.len() * times)
                .collect();
            bytes.splice(at..at, insert);
        }
        4 => {
            let word = rng.pick(HOSTILE).to_vec();
            bytes.splice(at..at, word);
        }
        5 => {
            let words = dictionary(format);
            if !words.is_empty() {
                let word = format!(" {} ", rng.pick(words));
                bytes.splice(at..at, word.into_bytes());
            } else {
                let i = rng.below(len.max(1));
                if i < len {
                    bytes[i] = *rng.pick(&[0, 1, 0x7f, 0x80, 0xff]);
                }
            }
        }
        6 => bytes.truncate(at),
        7 if !others.is_empty() => {
            // Splice part of another seed in.
            let (_, other) = rng.pick(others);
            if !other.is_empty() {
                let start = rng.below(other.len());
                let end = (start + 1 + rng.below(200)).min(other.len());
                bytes.splice(at..at, other[start..end].iter().copied());
            }
        }
        _ => {
            // Swap two lines.
            let text = String::from_utf8_lossy(bytes).into_owned();
            let mut lines: Vec<&str> = text.lines().collect();
            if lines.len() > 1 {
                let a = rng.below(lines.len());
                let b = rng.below(lines.len());
                lines.swap(a, b);
                *bytes = lines.join("\n").into_bytes();
            }
        }
    }
}

fn mutated(rng: &mut Rng, format: Format, seeds: &[(String, Vec<u8>)]) -> (Vec<u8>, String) {
    let (name, seed) = rng.pick(seeds);
    let mut bytes = seed.clone();
    let edits = 1 + rng.below(6);
    for _ in 0..edits {
        mutate(rng, format, &mut bytes, seeds);
    }
    (bytes, format!("{edits} mutations of {name}"))
}

fn repeat(unit: &str, n: usize) -> String {
    unit.repeat(n)
}

/// Assembly built to be deep or long.
fn structured_assembly(rng: &mut Rng) -> (String, String) {
    let n = rng.size();
    match rng.below(8) {
        0 => (
            format!(".entry main\n{}exit\n", repeat("        nop\n", n * 2)),
            format!("{} nops", n * 2),
        ),
        1 => (
            format!(".entry main\n{}: exit\n", repeat("l", n * 20)),
            "a very long label".into(),
        ),
        2 => {
            let mut s = String::from(".entry main\n");
            for i in 0..n {
                s.push_str(&format!("l{i}: bra l{}\n", (i * 7 + 3) % n.max(1)));
            }
            s.push_str("exit\n");
            (s, format!("{n} labels and branches"))
        }
        3 => (
            format!(
                ".entry main\n        li r1, {}\n        exit\n",
                repeat("9", n)
            ),
            format!("an immediate of {n} digits"),
        ),
        4 => (
            format!(
                ".entry main\n        add r1{}\n        exit\n",
                repeat(", r1", n)
            ),
            format!("{n} operands"),
        ),
        5 => (
            format!(
                ".entry main\n        li r1, {}1{}\n        exit\n",
                repeat("(", n),
                repeat(")", n)
            ),
            format!("{n} nested parentheses"),
        ),
        6 => (
            format!("{}.entry main\n exit\n", repeat(".param p\n", n)),
            format!("{n} parameters"),
        ),
        _ => (
            format!("; {}\n.entry main\n exit\n", repeat("comment ", n * 100)),
            "a long comment line".into(),
        ),
    }
}

/// CUDA-C built to be deep or long.
fn structured_source(rng: &mut Rng) -> (String, String) {
    let n = rng.size();
    let kernel = |body: &str| format!("__global__ void k(int *o, int x) {{\n{body}\n}}\n");
    match rng.below(14) {
        0 => {
            let op = *rng.pick(&["+", "-", "*", "&&", "||", ",", "<<", "==", "^", "/"]);
            let expr = vec!["x"; n].join(&format!(" {op} "));
            (
                kernel(&format!("o[0] = ({expr});")),
                format!("a chain of {n} `{op}`"),
            )
        }
        1 => (
            kernel(&format!("o[0] = {}x{};", repeat("(", n), repeat(")", n))),
            format!("{n} nested parentheses"),
        ),
        2 => {
            let op = *rng.pick(&["-", "!", "~", "(int)", "+", "*&"]);
            (
                kernel(&format!("o[0] = {}x;", repeat(op, n))),
                format!("{n} unary `{op}`"),
            )
        }
        3 => (
            kernel(&format!("{}o[0] = x;{}", repeat("{ ", n), repeat(" }", n))),
            format!("{n} nested blocks"),
        ),
        4 => (
            kernel(&format!("{}o[0] = x;", repeat("if (x) ", n))),
            format!("{n} nested ifs"),
        ),
        5 => (
            kernel(&format!(
                "{}o[0] += x;{}",
                repeat("for (int i = 0; i < x; i++) { ", n.min(10_000)),
                repeat(" }", n.min(10_000))
            )),
            format!("{} nested loops", n.min(10_000)),
        ),
        6 => (
            kernel(&format!("o[0] = {}x{};", repeat("o[", n), repeat("]", n))),
            format!("{n} nested subscripts"),
        ),
        7 => (
            kernel(&repeat("o[0] = o[0] + x;\n", n)),
            format!("{n} statements"),
        ),
        8 => {
            let mut s = String::from("__device__ int f0(int x) { return x; }\n");
            for i in 1..n.min(5_000) {
                s.push_str(&format!(
                    "__device__ int f{i}(int x) {{ return f{}(x) + 1; }}\n",
                    i - 1
                ));
            }
            s.push_str(&kernel(&format!("o[0] = f{}(x);", n.min(5_000) - 1)));
            (s, format!("a call chain of {}", n.min(5_000)))
        }
        9 => {
            let k = 10 + rng.below(30);
            let mut s = String::from("#define A0 x\n");
            for i in 1..k {
                s.push_str(&format!("#define A{i} A{}+A{}\n", i - 1, i - 1));
            }
            s.push_str(&kernel(&format!("o[0] = A{};", k - 1)));
            (s, format!("{k} doubling macros"))
        }
        10 => {
            let mut s = String::from("#define A0 x\n");
            for i in 1..n {
                s.push_str(&format!("#define A{i} A{}\n", i - 1));
            }
            s.push_str(&kernel(&format!("o[0] = A{};", n.max(2) - 1)));
            (s, format!("a chain of {n} macros"))
        }
        11 => (
            format!("#define F(a) F(a) a a\n{}", kernel("o[0] = F(x);")),
            "a self-referencing macro".into(),
        ),
        12 => (
            kernel(&format!("int {} = x; o[0] = x;", repeat("v", n * 20))),
            "a very long identifier".into(),
        ),
        _ => (
            kernel(&format!("o[0] = {};", repeat("7", n))),
            format!("a literal of {n} digits"),
        ),
    }
}

/// YAML built to be deep or long, on top of a launch or config seed.
fn structured_yaml(rng: &mut Rng, seed: &[u8], format: Format) -> (Vec<u8>, String) {
    let n = rng.size();
    let key = match format {
        Format::Launch => *rng.pick(&["grid", "block", "args", "outputs", "watchdog", "entry"]),
        _ => *rng.pick(&[
            "lanes",
            "warps",
            "registers",
            "arbitration",
            "global_memory_bytes",
        ]),
    };
    let value = match rng.below(8) {
        0 => format!("{}1{}", repeat("[", n), repeat("]", n)),
        1 => format!("{}1{}", repeat("{a: ", n), repeat("}", n)),
        2 => format!("[{}]", vec!["1"; n * 10].join(", ")),
        3 => repeat("9", n),
        4 => format!("\"{}\"", repeat("\\u001b", n)),
        5 => {
            // Aliases that expand exponentially (a "billion laughs").
            let mut s = String::from("&a0 [x, x]");
            let mut text = String::new();
            for i in 1..20 {
                text.push_str(&format!("\nx{i}: &a{i} [*a{}, *a{}]", i - 1, i - 1));
            }
            s.push_str(&text);
            s
        }
        6 => format!("!!binary {}", repeat("QUFB", n)),
        _ => repeat("- ", n.min(10_000)) + "1",
    };
    // Replace the key's line if the seed has one, else append the key.
    let text = String::from_utf8_lossy(seed);
    let mut out = String::new();
    let mut replaced = false;
    for line in text.lines() {
        if line.starts_with(&format!("{key}:")) && !replaced {
            out.push_str(&format!("{key}: {value}\n"));
            replaced = true;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    if !replaced {
        out.push_str(&format!("{key}: {value}\n"));
    }
    (out.into_bytes(), format!("a deep or long `{key}` ({n})"))
}

/// A container with one header word set to an extreme value, or cut short.
fn structured_container(rng: &mut Rng, seed: &[u8]) -> (Vec<u8>, String) {
    let mut bytes = seed.to_vec();
    if rng.chance(30) {
        let at = rng.below(bytes.len());
        bytes.truncate(at);
        return (bytes, format!("cut at byte {at}"));
    }
    let words = (bytes.len() / 4).clamp(1, 40);
    let word = rng.below(words);
    let value: u32 = *rng.pick(&[0, 1, 3, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x10000, 64]);
    if bytes.len() >= word * 4 + 4 {
        bytes[word * 4..word * 4 + 4].copy_from_slice(&value.to_le_bytes());
    }
    (bytes, format!("header word {word} set to {value:#x}"))
}

/// The `index`-th case of `format` for run seed `seed`.
pub fn case(format: Format, index: u64, seed: u64, seeds: &Seeds) -> Case {
    let mut rng = Rng::new(seed ^ (index.wrapping_mul(0x9E37_79B9_7F4A_7C15)) ^ format as u64);
    let structured = rng.chance(35);
    let s = |x: &str| x.to_string();
    match format {
        Format::Assembly => {
            let (bytes, how) = if structured {
                let (t, how) = structured_assembly(&mut rng);
                (t.into_bytes(), how)
            } else {
                mutated(&mut rng, format, &seeds.assembly)
            };
            Case {
                file_name: "in.s",
                bytes,
                args: vec![s("asm"), s("{in}"), s("-o"), s("{out}")],
                how,
            }
        }
        Format::Container => {
            let (bytes, how) = if structured {
                let (_, seed_bytes) = rng.pick(&seeds.containers);
                let seed_bytes = seed_bytes.clone();
                structured_container(&mut rng, &seed_bytes)
            } else {
                mutated(&mut rng, format, &seeds.containers)
            };
            // Disassemble, or run it (the launch that names it is written by the runner).
            let args = if rng.chance(50) {
                vec![s("disasm"), s("{in}"), s("-o"), s("{out}")]
            } else {
                vec![s("run"), s("{dir}/launch.yaml")]
            };
            Case {
                file_name: "in.cbin",
                bytes,
                args,
                how,
            }
        }
        Format::Source => {
            let (bytes, how) = if structured {
                let (t, how) = structured_source(&mut rng);
                (t.into_bytes(), how)
            } else {
                mutated(&mut rng, format, &seeds.sources)
            };
            let emit = rng.pick(&["bin", "asm", "ir"]).to_string();
            Case {
                file_name: "in.cu",
                bytes,
                args: vec![
                    s("compile"),
                    s("{in}"),
                    s("--emit"),
                    emit,
                    s("-o"),
                    s("{out}"),
                ],
                how,
            }
        }
        Format::Launch => {
            let (mut bytes, how) = if structured {
                let (_, seed_bytes) = rng.pick(&seeds.launches);
                let seed_bytes = seed_bytes.clone();
                structured_yaml(&mut rng, &seed_bytes, format)
            } else {
                mutated(&mut rng, format, &seeds.launches)
            };
            // The seeds' own watchdogs keep runs short; a mutated
            // watchdog would only make a correct run long.
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if text.contains("watchdog") && !how.contains("`watchdog`") {
                let kept: Vec<&str> = text
                    .lines()
                    .filter(|l| !l.starts_with("watchdog"))
                    .collect();
                bytes = kept.join("\n").into_bytes();
            }
            let mut args = vec![s("run"), s("{in}")];
            if rng.chance(20) {
                args.push(s("--json"));
            }
            Case {
                file_name: "in.yaml",
                bytes,
                args,
                how,
            }
        }
        Format::Config => {
            let (bytes, how) = if structured {
                let (_, seed_bytes) = rng.pick(&seeds.configs);
                let seed_bytes = seed_bytes.clone();
                structured_yaml(&mut rng, &seed_bytes, format)
            } else {
                mutated(&mut rng, format, &seeds.configs)
            };
            Case {
                file_name: "in.yaml",
                bytes,
                args: vec![s("config"), s("check"), s("{in}")],
                how,
            }
        }
    }
}
