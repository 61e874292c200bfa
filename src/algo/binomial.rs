//! Binomial-tree reduce (Wikipedia, "Reduce (parallel pattern)", *Binomial
//! tree algorithms*; Rabenseifner 2004 §3.3 "Binary Tree"): in step k the
//! processes whose relative rank has bit k set send their partial result to the
//! partner with that bit cleared and drop out. ⌈lg p⌉ steps of full vectors:
//! the choice for short vectors.

use super::{absolute_rank, relative_rank, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;

/// Reduce `buf` of all processes into `buf` at `root`. With root 0 the result is
/// combined in rank order (left operand = lower ranks).
pub fn reduce(t: &impl Transport, op: &impl Reducer, buf: &mut [u8], root: usize) -> MpiResult {
    let p = t.size();
    let me = relative_rank(t.rank(), root, p);
    let mut incoming = Vec::new();
    let mut distance = 1;
    while distance < p {
        if me & distance != 0 {
            return t.send(absolute_rank(me - distance, root, p), buf);
        }
        let child = me + distance;
        if child < p {
            incoming.resize(buf.len(), 0);
            t.recv(absolute_rank(child, root, p), &mut incoming)?;
            op.reduce(&incoming, buf, false)?;
        }
        distance <<= 1;
    }
    Ok(())
}
