//! In-process transport: `p` threads, one channel per ordered pair of ranks.
//! Sends are *synchronous* (they wait until the receiver has taken the message),
//! so an algorithm that would deadlock with MPI's rendezvous protocol deadlocks
//! here too; a receive that waits too long panics instead of hanging a test.

use crate::algo::Transport;
use crate::error::MpiResult;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(60);

/// One rank's end of an in-process communicator.
pub struct InProcess {
    rank: usize,
    size: usize,
    to: Vec<Sender<Vec<u8>>>,
    from: Vec<Receiver<Vec<u8>>>,
    ack_to: Vec<Sender<()>>,
    ack_from: Vec<Receiver<()>>,
}

impl InProcess {
    /// Run `body` on `p` ranks, each in its own thread; results in rank order.
    pub fn run<R: Send>(p: usize, body: impl Fn(&InProcess) -> R + Sync) -> Vec<R> {
        let mut ends = Self::mesh(p);
        std::thread::scope(|s| {
            let body = &body;
            let handles: Vec<_> = ends
                .drain(..)
                .map(|end| {
                    std::thread::Builder::new()
                        .stack_size(256 * 1024)
                        .spawn_scoped(s, move || body(&end))
                        .expect("spawn rank thread")
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("rank thread panicked")).collect()
        })
    }

    fn mesh(p: usize) -> Vec<InProcess> {
        let mut ends: Vec<InProcess> = (0..p)
            .map(|rank| InProcess { rank, size: p, to: vec![], from: vec![], ack_to: vec![], ack_from: vec![] })
            .collect();
        // Channel (src → dst) for data and (dst → src) for its acknowledgements.
        let mut from: Vec<Vec<Option<Receiver<Vec<u8>>>>> = (0..p).map(|_| (0..p).map(|_| None).collect()).collect();
        let mut ack_from: Vec<Vec<Option<Receiver<()>>>> = (0..p).map(|_| (0..p).map(|_| None).collect()).collect();
        for src in 0..p {
            for dst in 0..p {
                let (tx, rx) = channel();
                ends[src].to.push(tx);
                from[dst][src] = Some(rx);
                let (atx, arx) = channel();
                ends[dst].ack_to.push(atx); // pushed in src order for each dst
                ack_from[src][dst] = Some(arx);
            }
        }
        for (r, end) in ends.iter_mut().enumerate() {
            end.from = from[r].iter_mut().map(|x| x.take().unwrap()).collect();
            end.ack_from = ack_from[r].iter_mut().map(|x| x.take().unwrap()).collect();
        }
        ends
    }

    fn post(&self, to: usize, data: &[u8]) {
        self.to[to].send(data.to_vec()).expect("peer rank has exited");
    }

    fn wait_ack(&self, to: usize) {
        if self.ack_from[to].recv_timeout(PATIENCE).is_err() {
            panic!("rank {}: send to {} never received (deadlock?)", self.rank, to);
        }
    }

    fn take(&self, from: usize, buf: &mut [u8]) {
        let msg = match self.from[from].recv_timeout(PATIENCE) {
            Ok(m) => m,
            Err(_) => panic!("rank {}: nothing from {} (deadlock?)", self.rank, from),
        };
        assert_eq!(msg.len(), buf.len(), "rank {}: message from {} has the wrong length", self.rank, from);
        buf.copy_from_slice(&msg);
        let _ = self.ack_to[from].send(());
    }
}

impl Transport for InProcess {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn send(&self, to: usize, data: &[u8]) -> MpiResult {
        self.post(to, data);
        self.wait_ack(to);
        Ok(())
    }
    fn recv(&self, from: usize, buf: &mut [u8]) -> MpiResult {
        self.take(from, buf);
        Ok(())
    }
    fn sendrecv(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult {
        self.post(to, data);
        self.take(from, buf);
        self.wait_ack(to);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_shift_and_self_messages() {
        let got = InProcess::run(5, |t| {
            let mut b = [0u8; 1];
            t.sendrecv((t.rank() + 1) % 5, &[t.rank() as u8], (t.rank() + 4) % 5, &mut b).unwrap();
            b[0]
        });
        assert_eq!(got, vec![4, 0, 1, 2, 3]);
    }

    #[test]
    #[should_panic]
    fn mismatched_lengths_are_caught() {
        InProcess::run(2, |t| {
            let mut b = [0u8; 2];
            t.sendrecv(1 - t.rank(), &[1], 1 - t.rank(), &mut b).unwrap();
        });
    }
}
