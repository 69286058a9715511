//! A launch: the grid's blocks one after another; in a block, the threads one at a time up to
//! the next barrier, in an order shuffled per barrier interval (seeded), then checked: either
//! every thread waits at the barrier or every thread has exited. Any fault stops the launch with
//! the kernel, block, thread, PTX line and what happened.

use super::race::RaceChecker;
use super::thread::{BlockCtx, Frame, Stop, Thread};
use crate::error::{SimError, INVALID_VALUE, LAUNCH_FAILED, LAUNCH_OUT_OF_RESOURCES};
use crate::memory::MemoryMap;
use crate::ptx::ir::Module;

/// A launch's geometry.
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes (after the static shared variables).
    pub dynamic_shared: u32,
}

/// The largest block (threads) the sim accepts, as on NVIDIA GPUs.
pub const MAX_THREADS: u32 = 1024;

/// A small deterministic generator for the thread order.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn shuffle(&mut self, v: &mut [u32]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// Runs entry `func` of `module` over `cfg` with kernel parameters `params` (the bytes of the
/// entry's param space) against memory `mem`; `seed` picks the thread orders.
///
/// # Errors
///
/// The CUDA error of the first fault, with a message naming kernel, block, thread and address.
pub fn launch(
    module: &Module,
    func: usize,
    cfg: LaunchConfig,
    params: &[u8],
    mem: &MemoryMap,
    seed: u64,
    check_races: bool,
) -> Result<(), SimError> {
    let f = &module.functions[func];
    let threads = cfg.block.iter().map(|&b| u64::from(b)).product::<u64>();
    if threads == 0 || cfg.grid.contains(&0) {
        return Err(SimError::new(INVALID_VALUE, format!("launch of {} with an empty grid or block", f.name)));
    }
    if threads > u64::from(MAX_THREADS) {
        return Err(SimError::new(
            LAUNCH_OUT_OF_RESOURCES,
            format!("launch of {} with {threads} threads per block (at most {MAX_THREADS})", f.name),
        ));
    }
    if params.len() < f.param_size as usize {
        return Err(SimError::new(
            INVALID_VALUE,
            format!("launch of {}: {} bytes of parameters, the kernel takes {}", f.name, params.len(), f.param_size),
        ));
    }
    let shared_bytes = (module.module_shared + f.shared_size + cfg.dynamic_shared) as usize;
    let mut rng = Rng(seed | 1);
    for bz in 0..cfg.grid[2] {
        for by in 0..cfg.grid[1] {
            for bx in 0..cfg.grid[0] {
                let mut ctx = BlockCtx {
                    module,
                    mem,
                    ctaid: [bx, by, bz],
                    ntid: cfg.block,
                    nctaid: cfg.grid,
                    shared: vec![0xA5; shared_bytes],
                    race: RaceChecker::new(if check_races { shared_bytes } else { 0 }),
                    check_races,
                };
                run_block(&mut ctx, func as u32, params, &mut rng)?;
            }
        }
    }
    Ok(())
}

fn run_block(ctx: &mut BlockCtx<'_>, func: u32, params: &[u8], rng: &mut Rng) -> Result<(), SimError> {
    let [nx, ny, nz] = ctx.ntid;
    let mut threads = Vec::with_capacity((nx * ny * nz) as usize);
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let mut param = params.to_vec();
                param.resize(ctx.module.functions[func as usize].param_size as usize, 0);
                threads.push(Thread {
                    tid: [x, y, z],
                    linear: x + nx * (y + ny * z),
                    frames: vec![Frame::new(ctx.module, func, param)],
                    carry: false,
                });
            }
        }
    }
    let mut running: Vec<u32> = (0..threads.len() as u32).collect();
    let mut exited = 0usize;
    loop {
        rng.shuffle(&mut running);
        let mut waiting = Vec::new();
        for &t in &running {
            let thread = &mut threads[t as usize];
            match thread.run(ctx) {
                Ok(Stop::Barrier) => waiting.push(t),
                Ok(Stop::Exit) => exited += 1,
                Err(fault) => {
                    let name = &ctx.module.functions[fault.func as usize].name;
                    return Err(SimError::new(
                        fault.fault.0,
                        format!(
                            "kernel {} block ({},{},{}) thread ({},{},{}) in {name} at PTX line {}: {}",
                            ctx.module.functions[func as usize].name,
                            ctx.ctaid[0],
                            ctx.ctaid[1],
                            ctx.ctaid[2],
                            thread.tid[0],
                            thread.tid[1],
                            thread.tid[2],
                            fault.line,
                            fault.fault.1
                        ),
                    ));
                }
            }
        }
        if waiting.is_empty() {
            return Ok(());
        }
        if exited > 0 {
            waiting.sort_unstable();
            return Err(SimError::new(
                LAUNCH_FAILED,
                format!(
                    "kernel {} block ({},{},{}): a barrier not reached by every thread: {} threads wait at bar.sync (first: {}) while {exited} have exited",
                    ctx.module.functions[func as usize].name,
                    ctx.ctaid[0],
                    ctx.ctaid[1],
                    ctx.ctaid[2],
                    waiting.len(),
                    waiting[0]
                ),
            ));
        }
        ctx.race.barrier();
        running = waiting;
    }
}
