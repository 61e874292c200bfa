//! The real transport: `PMPI_Send`/`Recv`/`Sendrecv` of `MPI_BYTE` on fastred's
//! private duplicate of the user's communicator (so no user receive, not even
//! `MPI_ANY_SOURCE`/`MPI_ANY_TAG`, can match fastred's messages).
//!
//! Messages longer than the communicator's piece size (`FASTRED_PIECE`, rank
//! 0's, default [`DEFAULT_PIECE`]) go as several pieces, all posted at once on
//! Open MPI (one blocking call at a time on MPICH, see [`PIECES_AT_ONCE`]):
//! pieces below the MPI library's rendezvous threshold are sent eagerly, with
//! no handshake per message. Measured on the emulated TCP cluster
//! (docs/benchmarks.md, p = 8, ring allreduce of 1 MiB): 93% of the bandwidth
//! bound with 32 KiB pieces, 67–73% without.

use crate::algo::Transport;
use crate::error::MpiResult;
use crate::ffi::MPI_Comm;
use crate::mpi::{self, Requests};
use std::os::raw::c_int;

/// Default piece size: below Open MPI's TCP eager limit (64 KiB). Both ends
/// of a message must use the same piece size.
pub const DEFAULT_PIECE: usize = 32 << 10;
/// MPI counts are `int`: no piece may exceed this.
pub const MAX_PIECE: usize = 1 << 30;
const TAG: c_int = 0x7a3d;

pub struct PmpiTransport {
    comm: MPI_Comm,
    rank: usize,
    size: usize,
    piece: usize,
}

/// Byte ranges of the pieces of a `len`-byte message: at least one, so an
/// empty message is still one (empty) MPI message, as its receiver expects.
fn pieces(len: usize, piece: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let count = len.div_ceil(piece).max(1);
    (0..count).map(move |i| i * piece..((i + 1) * piece).min(len))
}

impl PmpiTransport {
    /// A transport over `comm` (fastred's private communicator) of which this
    /// process is `rank` of `size`, cutting messages into `piece` bytes.
    pub fn new(comm: MPI_Comm, rank: usize, size: usize, piece: usize) -> Self {
        PmpiTransport { comm, rank, size, piece: piece.clamp(1, MAX_PIECE) }
    }

    fn isend_pieces<'a>(&self, to: usize, data: &'a [u8], posted: &mut Requests<'a>) -> MpiResult {
        pieces(data.len(), self.piece).try_for_each(|r| posted.isend(self.comm, to, TAG, &data[r]))
    }

    fn irecv_pieces<'a>(&self, from: usize, buf: &'a mut [u8], posted: &mut Requests<'a>) -> MpiResult {
        let len = buf.len();
        let mut rest = buf;
        for range in pieces(len, self.piece) {
            let (piece, tail) = std::mem::take(&mut rest).split_at_mut(range.len());
            rest = tail;
            posted.irecv(self.comm, from, TAG, piece)?;
        }
        Ok(())
    }
}

/// Whether pieces are posted all at once and completed with `MPI_Wait`.
/// Open MPI reports an error found at completion (e.g. a truncated piece)
/// through the request's communicator: fastred's, which returns errors to
/// it. MPICH 4.0 raises such errors from `MPI_Wait` / `MPI_Request_get_status`
/// on `MPI_COMM_WORLD`'s handler, which aborts by default; so on MPICH
/// pieces go one blocking call at a time, whose errors reach fastred.
const PIECES_AT_ONCE: bool = cfg!(fastred_mpi = "openmpi");

impl PmpiTransport {
    fn send_one(&self, to: usize, data: &[u8]) -> MpiResult {
        mpi::send(self.comm, to, TAG, data)
    }

    fn recv_one(&self, from: usize, buf: &mut [u8]) -> MpiResult {
        mpi::recv(self.comm, from, TAG, buf)
    }

    fn sendrecv_one(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult {
        mpi::sendrecv(self.comm, TAG, to, data, from, buf)
    }

    /// Piece `i` of each direction in step `i`: every rank's step-i send
    /// matches its receiver's step-i receive, so the steps cannot deadlock.
    fn sendrecv_pieces_in_steps(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult {
        let (mut sends, mut recvs) = (pieces(data.len(), self.piece), pieces(buf.len(), self.piece));
        loop {
            match (sends.next(), recvs.next()) {
                (Some(s), Some(r)) => self.sendrecv_one(to, &data[s], from, &mut buf[r])?,
                (Some(s), None) => self.send_one(to, &data[s])?,
                (None, Some(r)) => self.recv_one(from, &mut buf[r])?,
                (None, None) => return Ok(()),
            }
        }
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
            return self.send_one(to, data);
        }
        if !PIECES_AT_ONCE {
            return pieces(data.len(), self.piece).try_for_each(|r| self.send_one(to, &data[r]));
        }
        let mut posted = Requests::new();
        self.isend_pieces(to, data, &mut posted)?;
        posted.wait_all()
    }

    fn recv(&self, from: usize, buf: &mut [u8]) -> MpiResult {
        if buf.len() <= self.piece {
            return self.recv_one(from, buf);
        }
        if !PIECES_AT_ONCE {
            return pieces(buf.len(), self.piece).try_for_each(|r| self.recv_one(from, &mut buf[r]));
        }
        let mut posted = Requests::new();
        self.irecv_pieces(from, buf, &mut posted)?;
        posted.wait_all()
    }

    fn sendrecv(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult {
        if data.len() <= self.piece && buf.len() <= self.piece {
            return self.sendrecv_one(to, data, from, buf);
        }
        if !PIECES_AT_ONCE {
            return self.sendrecv_pieces_in_steps(to, data, from, buf);
        }
        // Each direction is its own stream of pieces, so both ends agree on the
        // number of messages whatever the other direction's size.
        let mut posted = Requests::new();
        self.irecv_pieces(from, buf, &mut posted)?;
        self.isend_pieces(to, data, &mut posted)?;
        posted.wait_all()
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
