//! The shared-memory race checker. Between two barriers of a block (an epoch), two different
//! threads touching the same shared byte with at least one write is a race: on a GPU its result
//! depends on the warps' timing. Per byte it keeps the epoch, the last writer and the reader
//! (one thread, or several).

const NONE: u32 = u32::MAX;
const SEVERAL: u32 = u32::MAX - 1;

#[derive(Clone, Copy)]
struct Cell {
    epoch: u32,
    writer: u32,
    reader: u32,
}

/// A race: the byte offset, the other thread (`None` for several readers) and whether the
/// other access was a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Race {
    pub offset: usize,
    pub other: Option<u32>,
    pub other_wrote: bool,
}

/// The shadow of one block's shared memory.
pub struct RaceChecker {
    cells: Vec<Cell>,
    epoch: u32,
}

impl RaceChecker {
    pub fn new(bytes: usize) -> RaceChecker {
        RaceChecker { cells: vec![Cell { epoch: 0, writer: NONE, reader: NONE }; bytes], epoch: 1 }
    }

    /// A barrier passed: a new epoch.
    pub fn barrier(&mut self) {
        self.epoch += 1;
    }

    /// Records an access of `len` bytes at `offset` by `thread` (in bounds, checked by the
    /// caller); `Err` on a race.
    pub fn access(&mut self, offset: usize, len: usize, thread: u32, write: bool) -> Result<(), Race> {
        for (k, c) in self.cells[offset..offset + len].iter_mut().enumerate() {
            if c.epoch != self.epoch {
                *c = Cell { epoch: self.epoch, writer: NONE, reader: NONE };
            }
            if c.writer != NONE && c.writer != thread {
                return Err(Race { offset: offset + k, other: Some(c.writer), other_wrote: true });
            }
            if write {
                if c.reader != NONE && c.reader != thread {
                    let other = (c.reader != SEVERAL).then_some(c.reader);
                    return Err(Race { offset: offset + k, other, other_wrote: false });
                }
                c.writer = thread;
            } else if c.reader == NONE {
                c.reader = thread;
            } else if c.reader != thread {
                c.reader = SEVERAL;
            }
        }
        Ok(())
    }
}
