//! Comparing a final memory image with the image a host reference
//! produced: every element of every buffer of the launch.
//!
//! All buffers are compared, not only the declared outputs, so a stray
//! store into an input or a scratch buffer is caught too; the references
//! leave scratch buffers in the (deterministic) state the kernel does.

use crate::memory;
use crate::{CheckInput, Reference};

/// How many mismatches a failed check lists before summarising.
pub const MAX_REPORTED_MISMATCHES: usize = 8;

/// Runs `reference` on a copy of `input.initial` and compares every buffer
/// with `input.final_memory`.
pub(crate) fn against_reference(input: &CheckInput, reference: Reference) -> Result<(), String> {
    let mut expected = input.initial.to_vec();
    reference(input.launch, &mut expected)?;
    let mut lines = Vec::new();
    let mut total = 0usize;
    for buffer in &input.launch.buffers {
        let want = memory::read(&expected, buffer)?;
        let got = memory::read(input.final_memory, buffer)?;
        for (index, (w, g)) in want.iter().zip(&got).enumerate() {
            if w != g {
                total += 1;
                if lines.len() < MAX_REPORTED_MISMATCHES {
                    lines.push(format!("  {}[{index}]: expected {w}, got {g}", buffer.name));
                }
            }
        }
    }
    if total == 0 {
        return Ok(());
    }
    let more = total - lines.len();
    let mut report = format!("{total} element(s) differ:\n{}", lines.join("\n"));
    if more > 0 {
        report.push_str(&format!("\n  ... and {more} more"));
    }
    Err(report)
}
