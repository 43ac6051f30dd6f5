//! `; test: interp` filetests: run a kernel of the test's IR and print the
//! memory words the test asks for.
//!
//! The launch is described by comment lines of the test file (the IR parser
//! skips them):
//!
//! ```text
//! ; test: interp
//! ; launch: grid 2 block 32 lanes 8 shared 1024 memory 4096 kernel @reduce
//! ; params: 0x100 0x200 -5
//! ; mem: 0x100 1 2 3 4          (32-bit words from that address)
//! ; dump: 0x200 2               (print 2 words from that address)
//! ```
//!
//! Every `launch:` field is optional: `grid`/`block` take `X` or `X,Y,Z`
//! (default 1), `lanes` 8, `shared` 16384 bytes, `memory` 4096 bytes of
//! zeroed global memory, `kernel` the module's first kernel. The output is
//! one line `dump 0x200: 10 -3` per `dump:` (words as signed decimals),
//! then a `stats:` line; a failed run's error message is the `Err`.

use crate::ir::Module;

use super::{run, InterpLaunch, InterpOptions};

/// Runs the `; test: interp` filetest `file` (its IR already parsed into
/// `module`); the launch lines are read from the file itself.
pub fn run_file(module: &Module, file: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    run_text(module, &text)
}

/// As [`run_file`], with the test's text given.
pub fn run_text(module: &Module, text: &str) -> Result<String, String> {
    let spec = Spec::parse(text)?;
    let kernel = match &spec.kernel {
        Some(name) => module
            .func_by_name(name)
            .ok_or_else(|| format!("no function @{name} in the module"))?,
        None => module
            .kernels()
            .next()
            .ok_or_else(|| "the module has no kernel".to_string())?,
    };
    let mut global = vec![0u8; spec.memory as usize];
    for (addr, words) in &spec.mem {
        for (i, w) in words.iter().enumerate() {
            let at = *addr as usize + 4 * i;
            let dest = global
                .get_mut(at..at + 4)
                .ok_or_else(|| format!("`mem:` word at {at:#x} is outside the memory"))?;
            dest.copy_from_slice(&w.to_le_bytes());
        }
    }
    let stats = run(
        module,
        kernel,
        &spec.launch,
        &mut global,
        &InterpOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    let mut out = String::new();
    for &(addr, count) in &spec.dumps {
        out.push_str(&format!("dump {addr:#x}:"));
        for i in 0..count as usize {
            let at = addr as usize + 4 * i;
            let bytes = global
                .get(at..at + 4)
                .ok_or_else(|| format!("`dump:` word at {at:#x} is outside the memory"))?;
            let word = u32::from_le_bytes(bytes.try_into().expect("4 bytes"));
            out.push_str(&format!(" {}", word as i32));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "stats: {} instructions, {} barriers, {} votes, max call depth {}\n",
        stats.instructions, stats.barriers, stats.votes, stats.max_call_depth
    ));
    Ok(out)
}

struct Spec {
    launch: InterpLaunch,
    memory: u32,
    kernel: Option<String>,
    mem: Vec<(u32, Vec<u32>)>,
    dumps: Vec<(u32, u32)>,
}

impl Spec {
    fn parse(text: &str) -> Result<Spec, String> {
        let mut spec = Spec {
            launch: InterpLaunch {
                grid: [1; 3],
                block: [1; 3],
                params: Vec::new(),
                lanes: 8,
                shared_memory_bytes: 16 * 1024,
            },
            memory: 4096,
            kernel: None,
            mem: Vec::new(),
            dumps: Vec::new(),
        };
        for (n, line) in text.lines().enumerate() {
            let Some(comment) = line.trim_start().strip_prefix(';') else {
                continue;
            };
            let Some((key, rest)) = comment.trim().split_once(':') else {
                continue;
            };
            let at = |e: String| format!("line {}: {e}", n + 1);
            let words: Vec<&str> = rest.split_whitespace().collect();
            match key.trim() {
                "launch" => spec.parse_launch(&words).map_err(at)?,
                "params" => {
                    spec.launch.params = words
                        .iter()
                        .map(|w| number(w))
                        .collect::<Result<_, _>>()
                        .map_err(at)?
                }
                "mem" => {
                    let (addr, values) = words
                        .split_first()
                        .ok_or_else(|| at("`mem:` needs an address".into()))?;
                    let values = values
                        .iter()
                        .map(|w| number(w))
                        .collect::<Result<_, _>>()
                        .map_err(at)?;
                    spec.mem.push((number(addr).map_err(at)?, values));
                }
                "dump" => match words[..] {
                    [addr, count] => spec
                        .dumps
                        .push((number(addr).map_err(at)?, number(count).map_err(at)?)),
                    _ => return Err(at("`dump:` takes an address and a word count".into())),
                },
                _ => {}
            }
        }
        Ok(spec)
    }

    fn parse_launch(&mut self, words: &[&str]) -> Result<(), String> {
        let mut it = words.iter();
        while let Some(&key) = it.next() {
            let value = it.next().ok_or_else(|| format!("`{key}` needs a value"))?;
            match key {
                "grid" => self.launch.grid = dims(value)?,
                "block" => self.launch.block = dims(value)?,
                "lanes" => self.launch.lanes = number(value)?,
                "shared" => self.launch.shared_memory_bytes = number(value)?,
                "memory" => self.memory = number(value)?,
                "kernel" => self.kernel = Some(value.trim_start_matches('@').to_string()),
                _ => return Err(format!("unknown `launch:` field `{key}`")),
            }
        }
        Ok(())
    }
}

/// A 32-bit word: decimal or `0x` hex, optionally negative.
fn number(text: &str) -> Result<u32, String> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = match digits.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => digits.parse::<u64>(),
    }
    .map_err(|_| format!("bad number `{text}`"))?;
    let value = if negative {
        i64::try_from(magnitude)
            .ok()
            .map(|m| -m)
            .filter(|&v| v >= i64::from(i32::MIN))
            .map(|v| v as i32 as u32)
    } else {
        u32::try_from(magnitude).ok()
    };
    value.ok_or_else(|| format!("number `{text}` does not fit 32 bits"))
}

/// `X` or `X,Y,Z`.
fn dims(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<u32> = text.split(',').map(number).collect::<Result<_, _>>()?;
    match parts[..] {
        [x] => Ok([x, 1, 1]),
        [x, y, z] => Ok([x, y, z]),
        _ => Err(format!("bad dimensions `{text}`: write X or X,Y,Z")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_module;

    const SCALE: &str = "\
; test: interp
; launch: grid 2 block 4 memory 1024
; params: 0x100 -3
; mem: 0x100 1 2 3 4 5 6 7 8
; dump: 0x100 8
kernel @scale(a, k) {
block0:
    v0 = special tid.x
    v1 = special ctaid.x
    v2 = special ntid.x
    v3 = imul v1, v2
    v4 = iadd v3, v0
    v5 = iconst 2
    v6 = ishl v4, v5
    v7 = param 0
    v8 = iadd v7, v6
    v9 = load.global.b32 v8
    v10 = param 1
    v11 = imul v9, v10
    store.global.b32 v11, v8
    return
}
";

    #[test]
    fn runs_a_kernel_from_text_and_dumps_memory() {
        let module = parse_module(SCALE, "scale.cir").unwrap();
        let out = run_text(&module, SCALE).unwrap();
        // 8 threads of 14 instructions each.
        assert_eq!(
            out,
            "dump 0x100: -3 -6 -9 -12 -15 -18 -21 -24\n\
             stats: 112 instructions, 0 barriers, 0 votes, max call depth 0\n"
        );
    }

    #[test]
    fn header_errors_name_the_line() {
        let module = parse_module(SCALE, "scale.cir").unwrap();
        let bad = SCALE.replace("grid 2", "grid 2,2");
        assert!(run_text(&module, &bad).unwrap_err().starts_with("line 2:"));
        let bad = SCALE.replace("; dump: 0x100 8", "; dump: 0x100");
        assert!(run_text(&module, &bad).unwrap_err().starts_with("line 5:"));
        assert_eq!(number("-0x80000000"), Ok(0x8000_0000));
        assert!(number("-0x80000001").is_err());
        assert!(number("0x100000000").is_err());
    }

    #[test]
    fn run_errors_are_returned_as_text() {
        let text = SCALE.replace("memory 1024", "memory 256");
        let module = parse_module(&text, "scale.cir").unwrap();
        let err = run_text(&module, &text).unwrap_err();
        assert!(err.contains("`mem:` word at 0x100"), "{err}");
    }
}
