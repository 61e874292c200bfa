//! The real transport: `PMPI_Send`/`Recv`/`Sendrecv` of `MPI_BYTE` on fastred's
//! private duplicate of the user's communicator (so no user receive, not even
//! `MPI_ANY_SOURCE`/`MPI_ANY_TAG`, can match fastred's messages).
//!
//! Messages to a peer on another host longer than the communicator's piece
//! size (`FASTRED_PIECE`, rank 0's, default [`DEFAULT_PIECE`]) go as several
//! pieces: pieces below the MPI library's rendezvous threshold are sent
//! eagerly, with no handshake per message. Measured on the emulated TCP
//! cluster (docs/benchmarks.md, p = 8, ring allreduce of 1 MiB): 93% of the
//! bandwidth bound with 32 KiB pieces, 67–73% without. Messages to a peer on
//! the same host go whole: the library's shared-memory path (single copy for
//! long messages) is faster whole than in pieces (issue 11: Open MPI's
//! 1 MiB allreduce at np 2 took 1.7× native time in 32 KiB pieces).
//!
//! An exchange step sent in pieces ends only when its data has arrived (its
//! last piece is synchronous), so that consecutive steps to different peers
//! do not overlap in the network's queues (`sendrecv`).
//!
//! Pieces are in flight at most [`WINDOW`] per direction at once on Open MPI
//! (one blocking call at a time on MPICH, see [`PIECES_AT_ONCE`]), so a late
//! receiver never makes the library buffer a whole vector of unexpected
//! pieces and a 1 GiB message is not 32 768 outstanding requests.

use crate::algo::{Arrived, Handover, Inbox, Outbox, Transport};
use crate::scratch::Scratch;
use crate::error::MpiResult;
use crate::ffi::MPI_Comm;
use crate::mpi::{self, Arrivals, Requests, RingReceives};
use crate::scratch::Pooled;
use crate::shm::Segment;
use std::ops::Range;
use std::os::raw::c_int;

/// Default piece size, below the library's rendezvous threshold, so that a
/// piece is handed off without waiting for its receiver. Open MPI: 32 KiB
/// (its TCP eager limit is 64 KiB). MPICH: 16 KiB, where pieces go one
/// blocking call at a time ([`PIECES_AT_ONCE`]): UCX 1.13 over TCP sends
/// 32 KiB by rendezvous, a round trip per piece, which halved the bandwidth
/// (ring allreduce of 1-4 MiB 0.54-0.58x native in 32 KiB pieces), and
/// 16 KiB eagerly, so pieces stream (emulated cluster, 4 hosts at 50 Mbit/s,
/// default / native: allreduce 1.11-1.59x whole -> 1.50-2.00x in 16 KiB
/// pieces, pipelined reduce 0.63-1.28x -> 2.13-2.75x; docs/one-host.md
/// "MPICH: pieces below the rendezvous threshold"). SMPI: no pieces (whole
/// messages up to [`MAX_PIECE`]; its simulated transfers have no such
/// threshold). Both ends of a message must use the same size.
pub const DEFAULT_PIECE: usize = if cfg!(fastred_mpi = "openmpi") {
    32 << 10
} else if cfg!(fastred_mpi = "mpich") {
    16 << 10
} else {
    MAX_PIECE
};
/// MPI counts are `int`: no piece may exceed this.
pub const MAX_PIECE: usize = 1 << 30;
/// Pieces posted ahead per direction of a transfer (Open MPI): two, so the
/// next piece is on its way while one is received, and the sender never
/// runs further ahead of its receiver. With 16 (512 KiB of eager pieces
/// queued per flow) the emulated cluster's queues overflowed whenever a
/// step changed partners: at 8 hosts × 1 at 50 Mbit/s the pairwise exchange
/// ran at 0.62-0.89x the ring's speed and the ring at 84-93 % of the
/// bound; with 2 at 0.93-1.00x and 92-94 %, and on 4 hosts × 2 the
/// two-level allreduce of 1-4 MiB at 92-93 % of the inter-host bound
/// instead of 82-89 % (docs/one-host.md "Two pieces in flight").
pub const WINDOW: usize = 2;
/// Open MPI 4.1's shared-memory transport sends messages above this many
/// bytes by single copy, which writes a longer-than-expected message past
/// the receive buffer (ranks disagreeing on a count): such receives from a
/// peer that may be on the same host are matched first
/// ([`mpi::recv_bounded`], [`PmpiTransport::bounded`]).
const SINGLE_COPY_ABOVE: usize = 4096;
const TAG: c_int = 0x7a3d;

pub struct PmpiTransport<'a> {
    comm: MPI_Comm,
    rank: usize,
    size: usize,
    piece: usize,
    /// Host index of every rank, when known: peers on this rank's host get
    /// whole messages. Unknown (vectors no longer than one piece): everyone
    /// gets pieces, which are then whole messages anyway.
    hosts: Option<&'a [usize]>,
    /// The communicator's shared segment, for the shared-memory algorithm.
    shared: Option<&'a Segment>,
}

/// Byte ranges of the pieces of a `len`-byte message: at least one, so an
/// empty message is still one (empty) MPI message, as its receiver expects.
fn pieces(len: usize, piece: usize) -> impl Iterator<Item = Range<usize>> {
    let count = len.div_ceil(piece).max(1);
    (0..count).map(move |i| i * piece..((i + 1) * piece).min(len))
}

/// A receive buffer cut as [`pieces`] cuts a message of its length.
fn recv_pieces(buf: &mut [u8], piece: usize) -> impl Iterator<Item = &mut [u8]> {
    let len = buf.len();
    let mut rest = buf;
    pieces(len, piece).map(move |range| {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(range.len());
        rest = tail;
        head
    })
}

/// Post the next piece of one direction of [`PmpiTransport::stream`] with
/// `post`, first completing the oldest if [`WINDOW`] are pending; whether
/// there was one to post.
fn post_windowed<'a, P>(posted: &mut Requests<'a>, next: Option<P>, post: impl FnOnce(&mut Requests<'a>, P) -> MpiResult) -> MpiResult<bool> {
    let Some(piece) = next else { return Ok(false) };
    if posted.pending() == WINDOW {
        posted.wait_oldest()?;
    }
    post(posted, piece)?;
    Ok(true)
}

impl<'a> PmpiTransport<'a> {
    /// A transport over `comm` (fastred's private communicator) of which this
    /// process is `rank` of `size`, cutting messages to other hosts into
    /// `piece` bytes (`hosts`: every rank's host index, if known).
    pub fn new(comm: MPI_Comm, rank: usize, size: usize, piece: usize, hosts: Option<&'a [usize]>) -> Self {
        PmpiTransport { comm, rank, size, piece: piece.clamp(1, MAX_PIECE), hosts, shared: None }
    }

    /// The same, with the communicator's shared segment.
    pub fn with_shared_memory(self, shared: Option<&'a Segment>) -> Self {
        PmpiTransport { shared, ..self }
    }

    fn same_host(&self, peer: usize) -> bool {
        self.hosts.is_some_and(|h| h[peer] == h[self.rank])
    }

    /// The piece size towards `peer` (the same at both ends).
    fn piece_for(&self, peer: usize) -> usize {
        if self.same_host(peer) { MAX_PIECE } else { self.piece }
    }

    /// Whether a whole `len`-byte message from `from` must be received with
    /// [`mpi::recv_bounded`] (see [`SINGLE_COPY_ABOVE`]): from a peer on this
    /// host, or from any peer while the hosts are unknown (vectors no longer
    /// than one piece), since that peer may be on this host.
    fn bounded(&self, from: usize, len: usize) -> bool {
        cfg!(fastred_mpi = "openmpi") && len > SINGLE_COPY_ABOVE && (self.hosts.is_none() || self.same_host(from))
    }

    /// Whether an inbox of `slot_len`-byte slots posts the receives of
    /// messages from `from` ahead (else each is received when taken).
    fn posts_ahead(&self, from: usize, slot_len: usize) -> bool {
        RECEIVES_AHEAD && !self.bounded(from, slot_len)
    }

    /// Send `data` to `to` and receive `buf` from `from`, each direction a
    /// stream of pieces with at most [`WINDOW`] of them posted at a time.
    /// Each direction is its own stream, so both ends agree on the number of
    /// messages whatever the other direction's size. With `step_ends_delivered`
    /// the send's last piece goes in synchronous mode (why: `sendrecv` below).
    /// Received pieces go to `arrived` as they complete, oldest first.
    fn stream(&self, send: Option<(usize, &[u8])>, recv: Option<(usize, &mut [u8])>, step_ends_delivered: bool, mut arrived: Option<(Handover, &mut Arrived)>) -> MpiResult {
        let mut sends = send.map(|(to, data)| (to, pieces(data.len(), self.piece_for(to)).map(move |r| (step_ends_delivered && r.end == data.len(), &data[r]))));
        let mut recvs = recv.map(|(from, buf)| (from, pieces(buf.len(), self.piece_for(from)), Arrivals::new(buf)));
        let mut sent = Requests::new();
        loop {
            let posted_recv = match recvs.as_mut() {
                Some((from, next, into)) => match next.next() {
                    Some(piece) => {
                        if into.pending() == WINDOW {
                            into.wait_oldest()?;
                            hand_over(into, &mut arrived)?;
                        }
                        into.irecv(self.comm, *from, TAG, piece.len())?;
                        true
                    }
                    None => false,
                },
                None => false,
            };
            let posted_send = match sends.as_mut() {
                Some((to, next)) => post_windowed(&mut sent, next.next(), |q, (synchronous, piece)| {
                    if synchronous { q.issend(self.comm, *to, TAG, piece) } else { q.isend(self.comm, *to, TAG, piece) }
                })?,
                None => false,
            };
            if !posted_recv && !posted_send {
                if let Some((_, _, into)) = recvs.as_mut() {
                    while into.pending() > 0 {
                        into.wait_oldest()?;
                        hand_over(into, &mut arrived)?;
                    }
                }
                return sent.wait_all();
            }
        }
    }
}

/// Give `arrived` what has come in since its last part.
fn hand_over(into: &mut Arrivals, arrived: &mut Option<(Handover, &mut Arrived)>) -> MpiResult {
    match arrived {
        Some((handover, f)) => match handover.next_part(into.done()) {
            Some(part) => f(part.clone(), into.arrived(part)),
            None => Ok(()),
        },
        None => Ok(()),
    }
}

/// Whether pieces are posted ahead and completed with `MPI_Wait`.
/// Open MPI reports an error found at completion (e.g. a truncated piece)
/// through the request's communicator: fastred's, which returns errors to
/// it. MPICH 4.0 raises such errors from `MPI_Wait` / `MPI_Request_get_status`
/// on `MPI_COMM_WORLD`'s handler, which aborts by default; so on MPICH
/// pieces go one blocking call at a time, whose errors reach fastred.
const PIECES_AT_ONCE: bool = cfg!(fastred_mpi = "openmpi");

/// Whether [`Transport::inbox`] posts its receives ahead. Not on MPICH, for
/// the same reason as [`PIECES_AT_ONCE`]: a receive truncated by ranks that
/// disagree on a count would abort on `MPI_COMM_WORLD`'s handler in
/// `MPI_Wait` instead of returning `MPI_ERR_TRUNCATE` (test `reliability
/// truncate-reduce`). Over MPICH's eager protocol (UCX, 16 KiB pieces) the
/// segments arrive without posted receives anyway (emulated cluster, 4 hosts:
/// the pipeline 0.98-1.03x its time before the inbox).
const RECEIVES_AHEAD: bool = !cfg!(fastred_mpi = "mpich");

impl PmpiTransport<'_> {
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
    /// Received pieces go to `arrived` after their step.
    fn sendrecv_pieces_in_steps(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8], mut arrived: Option<(Handover, &mut Arrived)>) -> MpiResult {
        let mut sends = pieces(data.len(), self.piece_for(to)).map(|r| &data[r]);
        let mut recvs = pieces(buf.len(), self.piece_for(from));
        loop {
            let received = match (sends.next(), recvs.next()) {
                (Some(s), Some(r)) => {
                    self.sendrecv_one(to, s, from, &mut buf[r.clone()])?;
                    r.end
                }
                (Some(s), None) => {
                    self.send_one(to, s)?;
                    continue;
                }
                (None, Some(r)) => {
                    self.recv_one(from, &mut buf[r.clone()])?;
                    r.end
                }
                (None, None) => return Ok(()),
            };
            if let Some((handover, f)) = arrived.as_mut() {
                if let Some(part) = handover.next_part(received) {
                    f(part.clone(), &mut buf[part])?;
                }
            }
        }
    }

    /// `sendrecv`, handing the received pieces to `arrived` (if any).
    fn exchange(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8], arrived: Option<(Handover, &mut Arrived)>) -> MpiResult {
        if data.len() <= self.piece_for(to) && buf.len() <= self.piece_for(from) {
            if self.bounded(from, buf.len()) {
                let mut sending = Requests::new();
                sending.isend(self.comm, to, TAG, data)?;
                mpi::recv_bounded(self.comm, from, TAG, buf)?;
                sending.wait_all()?;
            } else {
                self.sendrecv_one(to, data, from, buf)?;
            }
            return match arrived {
                Some((_, f)) if !buf.is_empty() => f(0..buf.len(), buf),
                _ => Ok(()),
            };
        }
        if !PIECES_AT_ONCE {
            return self.sendrecv_pieces_in_steps(to, data, from, buf, arrived);
        }
        self.stream(Some((to, data)), Some((from, buf)), true, arrived)
    }
}

/// [`Transport::outbox`]'s sends: the requests of every message's pieces,
/// in the order posted.
struct PmpiOutbox<'t, 'd> {
    transport: &'t PmpiTransport<'t>,
    requests: Requests<'d>,
    /// Pieces of each message posted; those before `completed` are done.
    pieces: Pooled<usize>,
    completed: usize,
}

impl<'d> Outbox<'d> for PmpiOutbox<'_, 'd> {
    fn post(&mut self, to: usize, data: &'d [u8]) -> MpiResult {
        let mut count = 0;
        for r in pieces(data.len(), self.transport.piece_for(to)) {
            self.requests.isend(self.transport.comm, to, TAG, &data[r])?;
            count += 1;
        }
        self.pieces.push(count);
        Ok(())
    }
    fn pending(&self) -> usize {
        self.pieces.len() - self.completed
    }
    fn complete_oldest(&mut self) -> MpiResult {
        let Some(&count) = self.pieces.get(self.completed) else { return Ok(()) };
        (0..count).try_for_each(|_| self.requests.wait_oldest())?;
        self.completed += 1;
        Ok(())
    }
}

/// [`Transport::inbox`]'s receives: each expected message posted at once in
/// its pieces into the next slot of a ring, or, on MPICH ([`RECEIVES_AHEAD`])
/// and from a peer whose messages need [`PmpiTransport::bounded`] receives,
/// received into its slot when taken.
struct PmpiInbox<'t, 'b> {
    transport: &'t PmpiTransport<'t>,
    /// Whether a peer's messages are received when taken is decided from
    /// the ring's slot length (the longest message), once per inbox, so that
    /// a receive posted ahead never overtakes an earlier message of the
    /// same peer.
    ring: RingReceives<'b>,
}

impl Inbox for PmpiInbox<'_, '_> {
    fn expect(&mut self, from: usize, len: usize) -> MpiResult {
        if self.transport.posts_ahead(from, self.ring.slot_len()) {
            let piece = self.transport.piece_for(from);
            return self.ring.irecv(self.transport.comm, from, TAG, len, pieces(len, piece).map(|r| r.len()));
        }
        self.ring.defer(from, len);
        Ok(())
    }
    fn expected(&self) -> usize {
        self.ring.expected()
    }
    fn take_oldest(&mut self) -> MpiResult<&mut [u8]> {
        let transport = self.transport;
        let (slot, deferred) = self.ring.take_oldest()?;
        if let Some(from) = deferred {
            transport.recv(from, slot)?;
        }
        Ok(slot)
    }
}

impl Transport for PmpiTransport<'_> {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }

    fn send(&self, to: usize, data: &[u8]) -> MpiResult {
        let piece = self.piece_for(to);
        if data.len() <= piece {
            return self.send_one(to, data);
        }
        if !PIECES_AT_ONCE {
            return pieces(data.len(), piece).try_for_each(|r| self.send_one(to, &data[r]));
        }
        self.stream(Some((to, data)), None, false, None)
    }

    fn recv(&self, from: usize, buf: &mut [u8]) -> MpiResult {
        let piece = self.piece_for(from);
        if buf.len() <= piece {
            if self.bounded(from, buf.len()) {
                return mpi::recv_bounded(self.comm, from, TAG, buf);
            }
            return self.recv_one(from, buf);
        }
        if !PIECES_AT_ONCE {
            return recv_pieces(buf, piece).try_for_each(|r| self.recv_one(from, r));
        }
        self.stream(None, Some((from, buf)), false, None)
    }

    /// An exchange step in pieces ends only when its data has arrived: the
    /// last piece of the send goes as `MPI_Issend`, complete once the receiver
    /// has matched it (pieces arrive in order, so after all of them). Sent
    /// eagerly, a step is done as soon as its pieces sit in the socket's
    /// buffer; an algorithm whose next step goes to another peer (pairwise
    /// exchange, halving & doubling, circulant) then starts a second flow
    /// while the first still drains, and the two collide in the host's and
    /// the switch's queues (drops, fast retransmits, halved windows).
    /// Measured on the emulated cluster (Open MPI, 4, 6 and 8 hosts at
    /// 50 Mbit/s, 1–4 MiB, alternated runs, docs/reproducible.md "Steps that
    /// end delivered"): pairwise 0.63–0.90 and halving & doubling 0.75–1.03
    /// of the eager time, the ring (same peer every step) 0.97–1.04. MPICH
    /// sends long messages whole, by rendezvous, which already completes
    /// only when the receiver has matched.
    fn sendrecv(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult {
        self.exchange(to, data, from, buf, None)
    }

    /// The pieces of a message from another host are handed over as they
    /// complete (on MPICH, after each blocking step); a whole message (same
    /// host, or one piece) after it is in.
    fn sendrecv_arriving(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8], unit: usize, arrived: &mut Arrived) -> MpiResult {
        let handover = Handover::new(buf.len(), unit);
        self.exchange(to, data, from, buf, Some((handover, arrived)))
    }

    /// Whole messages (one piece each, no bounded receive): every receive
    /// posted, then waited for in turn. Otherwise one after another.
    fn recv_each(&self, sources: &mut [(usize, &mut [u8])]) -> MpiResult {
        if sources.iter().any(|(from, buf)| buf.len() > self.piece_for(*from) || self.bounded(*from, buf.len())) {
            return sources.iter_mut().try_for_each(|(from, buf)| self.recv(*from, buf));
        }
        let mut posted = Requests::new();
        for (from, buf) in sources.iter_mut() {
            posted.irecv(self.comm, *from, TAG, buf)?;
        }
        posted.wait_all()
    }

    /// Each message posted in its pieces (`MPI_Isend`), completed with one
    /// `MPI_Wait` per piece, oldest first.
    fn outbox<'d>(&self, body: &mut dyn FnMut(&mut dyn Outbox<'d>) -> MpiResult) -> MpiResult {
        let mut out = PmpiOutbox { transport: self, requests: Requests::new(), pieces: Pooled::new(), completed: 0 };
        body(&mut out)?;
        out.requests.wait_all()
    }

    /// Every expected message posted at once in its pieces
    /// (`MPI_Irecv`), completed with one `MPI_Wait` per piece when taken;
    /// on MPICH, and from a peer whose messages need bounded receives (Open
    /// MPI's single copy: [`PmpiTransport::bounded`]), received when taken.
    fn inbox(&self, slots: usize, slot_len: usize, body: &mut dyn FnMut(&mut dyn Inbox) -> MpiResult) -> MpiResult {
        let mut buffer = Scratch::new(slots * slot_len)?;
        let mut inbox = PmpiInbox { transport: self, ring: RingReceives::new(&mut buffer, slots, slot_len) };
        body(&mut inbox)?;
        inbox.take_rest()
    }

    /// Where [`Transport::inbox`] posts the message at once, in one piece.
    fn receives_ahead(&self, from: usize, len: usize) -> bool {
        len <= self.piece_for(from) && self.posts_ahead(from, len)
    }

    fn shared_memory(&self) -> Option<&Segment> {
        self.shared
    }
}

#[cfg(test)]
mod tests {
    use super::pieces;

    #[test]
    fn receive_pieces_match_send_pieces() {
        for (len, piece) in [(0, 4), (4, 4), (9, 4), (3, 8)] {
            let mut buf = vec![0u8; len];
            let got: Vec<usize> = super::recv_pieces(&mut buf, piece).map(|p| p.len()).collect();
            let want: Vec<usize> = pieces(len, piece).map(|r| r.len()).collect();
            assert_eq!(got, want, "len {len} piece {piece}");
        }
    }

    #[test]
    fn every_message_is_at_least_one_piece() {
        assert_eq!(pieces(0, 4).collect::<Vec<_>>(), vec![0..0]);
        assert_eq!(pieces(4, 4).collect::<Vec<_>>(), vec![0..4]);
        assert_eq!(pieces(9, 4).collect::<Vec<_>>(), vec![0..4, 4..8, 8..9]);
    }
}
