//! The real transport: `PMPI_Send`/`Recv`/`Sendrecv` of `MPI_BYTE` on fastred's
//! private duplicate of the user's communicator (so no user receive, not even
//! `MPI_ANY_SOURCE`/`MPI_ANY_TAG`, can match fastred's messages).
//!
//! Messages longer than the communicator's piece size (`FASTRED_PIECE`, rank
//! 0's, default [`DEFAULT_PIECE`]) go as several pieces, all posted at once:
//! pieces below the MPI library's rendezvous threshold are sent eagerly, with
//! no handshake per message. Measured on the emulated TCP cluster
//! (docs/benchmarks.md, p = 8, ring allreduce of 1 MiB): 93% of the bandwidth
//! bound with 32 KiB pieces, 67–73% without.

use crate::algo::Transport;
use crate::error::{MpiError, MpiResult};
use crate::ffi::{self, MPI_Comm, MPI_Datatype};
use std::os::raw::c_int;

/// Default piece size: below Open MPI's TCP eager limit (64 KiB). Both ends
/// of a message must use the same piece size.
pub const DEFAULT_PIECE: usize = 32 << 10;
/// MPI counts are `int`: no piece may exceed this.
pub const MAX_PIECE: usize = 1 << 30;
const TAG: c_int = 0x7a3d;

pub struct PmpiTransport {
    comm: MPI_Comm,
    byte: MPI_Datatype,
    rank: usize,
    size: usize,
    piece: usize,
}

/// A pointer MPI may see for `data`: an empty slice's pointer is dangling (0x1
/// for bytes), and 0x1 is Open MPI's MPI_IN_PLACE, so empty buffers point here.
fn buf_ptr(data: &[u8]) -> *const std::os::raw::c_void {
    static EMPTY: u8 = 0;
    if data.is_empty() { (&EMPTY as *const u8).cast() } else { data.as_ptr().cast() }
}

fn buf_mut_ptr(data: &mut [u8]) -> *mut std::os::raw::c_void {
    if data.is_empty() { buf_ptr(data) as *mut _ } else { data.as_mut_ptr().cast() }
}

/// Byte ranges of the pieces of a `len`-byte message: at least one, so an
/// empty message is still one (empty) MPI message, as its receiver expects.
fn pieces(len: usize, piece: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let count = len.div_ceil(piece).max(1);
    (0..count).map(move |i| i * piece..((i + 1) * piece).min(len))
}

fn check(rc: c_int) -> MpiResult {
    if rc == ffi::SUCCESS { Ok(()) } else { Err(MpiError(rc)) }
}

impl PmpiTransport {
    /// A transport over `comm` (fastred's private communicator) of which this
    /// process is `rank` of `size`, cutting messages into `piece` bytes.
    pub fn new(comm: MPI_Comm, rank: usize, size: usize, piece: usize) -> Self {
        // SAFETY: a constant handle from the shim.
        let byte = unsafe { ffi::fr_byte() };
        PmpiTransport { comm, byte, rank, size, piece: piece.clamp(1, MAX_PIECE) }
    }

    fn isend_pieces(&self, to: usize, data: &[u8], reqs: &mut Vec<ffi::MPI_Request>) -> MpiResult {
        for piece in pieces(data.len(), self.piece).map(|r| &data[r]) {
            let mut req = std::mem::MaybeUninit::uninit();
            // SAFETY: `piece` outlives the request (waited on before returning).
            check(unsafe {
                ffi::PMPI_Isend(buf_ptr(piece), piece.len() as c_int, self.byte, to as c_int, TAG, self.comm, req.as_mut_ptr())
            })?;
            reqs.push(unsafe { req.assume_init() });
        }
        Ok(())
    }

    fn irecv_pieces(&self, from: usize, buf: &mut [u8], reqs: &mut Vec<ffi::MPI_Request>) -> MpiResult {
        for range in pieces(buf.len(), self.piece) {
            let piece = &mut buf[range];
            let mut req = std::mem::MaybeUninit::uninit();
            // SAFETY: as above.
            check(unsafe {
                ffi::PMPI_Irecv(buf_mut_ptr(piece), piece.len() as c_int, self.byte, from as c_int, TAG, self.comm, req.as_mut_ptr())
            })?;
            reqs.push(unsafe { req.assume_init() });
        }
        Ok(())
    }

    fn wait_all(reqs: &mut [ffi::MPI_Request]) -> MpiResult {
        // SAFETY: valid requests; statuses ignored.
        check(unsafe { ffi::PMPI_Waitall(reqs.len() as c_int, reqs.as_mut_ptr(), ffi::RSMPI_STATUSES_IGNORE) })
    }
}

impl Transport for PmpiTransport {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }

    fn send(&self, to: usize, data: &[u8]) -> MpiResult {
        if data.len() <= self.piece {
            // SAFETY: valid buffer of data.len() bytes.
            return check(unsafe { ffi::PMPI_Send(buf_ptr(data), data.len() as c_int, self.byte, to as c_int, TAG, self.comm) });
        }
        let mut reqs = Vec::new();
        self.isend_pieces(to, data, &mut reqs)?;
        Self::wait_all(&mut reqs)
    }

    fn recv(&self, from: usize, buf: &mut [u8]) -> MpiResult {
        if buf.len() <= self.piece {
            // SAFETY: valid buffer of buf.len() bytes.
            return check(unsafe {
                ffi::PMPI_Recv(buf_mut_ptr(buf), buf.len() as c_int, self.byte, from as c_int, TAG, self.comm, ffi::RSMPI_STATUS_IGNORE)
            });
        }
        let mut reqs = Vec::new();
        self.irecv_pieces(from, buf, &mut reqs)?;
        Self::wait_all(&mut reqs)
    }

    fn sendrecv(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult {
        if data.len() <= self.piece && buf.len() <= self.piece {
            // SAFETY: valid buffers of the given lengths.
            return check(unsafe {
                ffi::PMPI_Sendrecv(
                    buf_ptr(data), data.len() as c_int, self.byte, to as c_int, TAG,
                    buf_mut_ptr(buf), buf.len() as c_int, self.byte, from as c_int, TAG,
                    self.comm, ffi::RSMPI_STATUS_IGNORE,
                )
            });
        }
        // Each direction is its own stream of pieces, so both ends agree on the
        // number of messages whatever the other direction's size.
        let mut reqs = Vec::new();
        self.irecv_pieces(from, buf, &mut reqs)?;
        self.isend_pieces(to, data, &mut reqs)?;
        Self::wait_all(&mut reqs)
    }
}

#[cfg(test)]
mod tests {
    use super::pieces;

    #[test]
    fn every_message_is_at_least_one_piece() {
        assert_eq!(pieces(0, 4).collect::<Vec<_>>(), vec![0..0]);
        assert_eq!(pieces(4, 4).collect::<Vec<_>>(), vec![0..4]);
        assert_eq!(pieces(9, 4).collect::<Vec<_>>(), vec![0..4, 4..8, 8..9]);
    }
}
