//! Reading and writing a launch's buffers and scalars in a global memory
//! image, for the host references.
//!
//! Every element is handled as an `i32`: narrow types are sign- or
//! zero-extended by their type when read and truncated when written, and
//! `u32` elements wrap, exactly as a 32-bit register sees them.

use concord_isa::launch::{Buffer, PreparedLaunch};

/// The buffer argument called `name`.
pub(crate) fn buffer<'l>(launch: &'l PreparedLaunch, name: &str) -> Result<&'l Buffer, String> {
    launch.buffer(name).ok_or_else(|| {
        let names: Vec<&str> = launch.buffers.iter().map(|b| b.name.as_str()).collect();
        format!(
            "the launch has no buffer `{name}` (buffers: {})",
            names.join(", ")
        )
    })
}

/// The byte range of `buffer` in an image of `len` bytes.
fn span(buffer: &Buffer, len: usize) -> Result<std::ops::Range<usize>, String> {
    let start = buffer.addr as usize;
    let end = start + buffer.bytes() as usize;
    if end > len {
        return Err(format!(
            "buffer `{}` at {start:#x}..{end:#x} lies outside the memory image of {len} bytes",
            buffer.name
        ));
    }
    Ok(start..end)
}

/// All elements of `buffer` in `memory`.
pub(crate) fn read(memory: &[u8], buffer: &Buffer) -> Result<Vec<i32>, String> {
    let bytes = &memory[span(buffer, memory.len())?];
    let size = buffer.elem.bytes() as usize;
    Ok(bytes
        .chunks_exact(size)
        .map(|chunk| buffer.elem.decode(chunk).unwrap_or(0) as i32)
        .collect())
}

/// The elements of the buffer called `name`.
pub(crate) fn read_named(
    launch: &PreparedLaunch,
    memory: &[u8],
    name: &str,
) -> Result<Vec<i32>, String> {
    read(memory, buffer(launch, name)?)
}

/// Overwrites the buffer called `name` with `values` (truncated to the
/// element size). `values` must have one value per element.
pub(crate) fn write_named(
    launch: &PreparedLaunch,
    memory: &mut [u8],
    name: &str,
    values: &[i32],
) -> Result<(), String> {
    let buffer = buffer(launch, name)?;
    if values.len() != buffer.len as usize {
        return Err(format!(
            "internal: {} values for buffer `{name}` of {} elements",
            values.len(),
            buffer.len
        ));
    }
    let range = span(buffer, memory.len())?;
    let size = buffer.elem.bytes() as usize;
    for (chunk, value) in memory[range].chunks_exact_mut(size).zip(values) {
        chunk.copy_from_slice(&value.to_le_bytes()[..size]);
    }
    Ok(())
}

/// The parameter word at `index` (the kernel's `index`-th parameter) as an
/// `i32`; `name` is for the error message.
pub(crate) fn scalar(launch: &PreparedLaunch, index: usize, name: &str) -> Result<i32, String> {
    launch.params.get(index).map(|&w| w as i32).ok_or_else(|| {
        format!(
            "the launch has {} parameter words; scalar `{name}` is parameter {index}",
            launch.params.len()
        )
    })
}

/// `Err` unless `value` lies in `range`: references refuse scalars that
/// the kernel's own sizing (shared arrays, shapes) does not support.
pub(crate) fn require(
    name: &str,
    value: i32,
    range: std::ops::RangeInclusive<i32>,
) -> Result<i32, String> {
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(format!(
            "`{name}` = {value} is outside what this kernel supports ({}..={})",
            range.start(),
            range.end()
        ))
    }
}

/// `Err` unless the buffer called `name` holds at least `len` elements.
pub(crate) fn require_len(launch: &PreparedLaunch, name: &str, len: usize) -> Result<(), String> {
    let buffer = buffer(launch, name)?;
    if (buffer.len as usize) < len {
        return Err(format!(
            "buffer `{name}` has {} elements but the launch needs {len}",
            buffer.len
        ));
    }
    Ok(())
}

/// Threads in the whole grid.
pub(crate) fn total_threads(launch: &PreparedLaunch) -> usize {
    (launch.grid_blocks() * launch.block_threads()) as usize
}

/// `Err` unless the block is one-dimensional with at most `max` threads.
pub(crate) fn require_1d_block(launch: &PreparedLaunch, max: usize) -> Result<usize, String> {
    let threads = launch.block_threads() as usize;
    if launch.block[1] != 1 || launch.block[2] != 1 || threads > max {
        return Err(format!(
            "this kernel needs a 1-D block of at most {max} threads, got {:?}",
            launch.block
        ));
    }
    Ok(threads)
}
