//! Pipelined (segmented) reduction up a tree, the engine shared by the linear
//! pipeline and the Fibonacci tree (Wikipedia, "Reduce (parallel pattern)",
//! "Pipelined tree", after Sanders & Sibeyn 2003): the vector is cut into k
//! segments that flow towards the root one after another, so every link of the
//! tree carries a segment at the same time once the pipeline is full.

use super::{relative_rank, absolute_rank, Blocks, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;
use crate::scratch::Pooled;
use std::ops::Range;

/// A process's neighbours in a reduction tree rooted at relative rank 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeLinks {
    pub parent: Option<usize>,
    /// Received from in this order, for every segment.
    pub children: Pooled<usize>,
}

impl TreeLinks {
    /// Translate links given in ranks relative to `root` into absolute ranks.
    pub fn absolute(self, root: usize, p: usize) -> TreeLinks {
        TreeLinks {
            parent: self.parent.map(|q| absolute_rank(q, root, p)),
            children: self.children.iter().map(|&q| absolute_rank(q, root, p)).collect(),
        }
    }
}

/// Byte ranges of `k` nearly equal segments of a vector of `buf_len` bytes
/// (`k` is clamped to 1..=elements, so no segment is empty).
pub fn segments(buf_len: usize, elem: usize, k: usize) -> Pooled<Range<usize>> {
    let elems = buf_len / elem;
    let k = k.clamp(1, elems.max(1));
    Blocks::even(elems, k).byte_ranges(elem)
}

/// Segments for a target segment size in bytes (rounded to whole elements).
pub fn segments_of_size(buf_len: usize, elem: usize, segment_bytes: usize) -> Pooled<Range<usize>> {
    segments(buf_len, elem, buf_len.div_ceil(segment_bytes.max(elem)))
}

/// Reduce `buf` up the tree: for each segment s, fold in every child's segment
/// s (in `links.children` order), then pass it to the parent. Sending segment
/// s−1 to the parent overlaps with receiving segment s from the first child.
/// The root ends with the reduction of all processes' vectors.
pub fn reduce_up(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], links: &TreeLinks, segments: &[Range<usize>]) -> MpiResult {
    let longest = segments.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut incoming = super::scratch(longest)?;
    for (s, seg) in segments.iter().enumerate() {
        for (c, &child) in links.children.iter().enumerate() {
            let into = &mut incoming[..seg.len()];
            match links.parent {
                Some(parent) if c == 0 && s > 0 => t.sendrecv(parent, &buf[segments[s - 1].clone()], child, into)?,
                _ => t.recv(child, into)?,
            }
            op.reduce(into, &mut buf[seg.clone()], false)?;
        }
        if let (Some(parent), true) = (links.parent, links.children.is_empty()) {
            t.send(parent, &buf[seg.clone()])?; // a leaf just streams
        }
    }
    match (links.parent, segments.last()) {
        (Some(parent), Some(last)) if !links.children.is_empty() => t.send(parent, &buf[last.clone()]),
        _ => Ok(()),
    }
}

/// Reduce to `root` up the tree whose links `links(q, p)` gives for relative
/// rank q, in segments of about `segment_bytes`, or `model_segments` of them
/// when `None` (the pipelined reduces differ only in tree and segment count).
pub fn reduce_on_tree(
    t: &(impl Transport + ?Sized),
    op: &(impl Reducer + ?Sized),
    buf: &mut [u8],
    root: usize,
    segment_bytes: Option<usize>,
    model_segments: usize,
    links: fn(usize, usize) -> TreeLinks,
) -> MpiResult {
    let p = t.size();
    let segments = match segment_bytes {
        Some(b) => segments_of_size(buf.len(), op.elem_size(), b),
        None => segments(buf.len(), op.elem_size(), model_segments),
    };
    let links = links(relative_rank(t.rank(), root, p), p).absolute(root, p);
    reduce_up(t, op, buf, &links, &segments)
}

/// The number of segments that minimises (steps + k)(α + βn/k), the cost of
/// a pipeline whose first segment needs `fill` steps longer than the others
/// per segment `stride` steps: k* = √(fill·βn / (stride·α)).
pub fn optimal_segments(fill: f64, stride: f64, bytes: usize, model: &crate::model::CostModel) -> usize {
    let k = (fill.max(0.0) * model.beta * bytes as f64 / (stride * model.alpha)).sqrt();
    (k.round() as usize).max(1)
}
