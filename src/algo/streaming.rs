//! Pipelined (segmented) reduction up a tree, the engine shared by the linear
//! pipeline, the Fibonacci tree and the two-tree ([`stream_up`]; Wikipedia, "Reduce (parallel pattern)",
//! "Pipelined tree", after Sanders & Sibeyn 2003): the vector is cut into k
//! segments that flow towards the root one after another, so every link of the
//! tree carries a segment at the same time once the pipeline is full.

use super::{relative_rank, absolute_rank, Blocks, Inbox, Outbox, Transport};
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

/// A vector (or half of one) on its way to rank `to` (none: the root keeps
/// it) in `segments` (byte ranges of `data`).
pub struct Stream<'s, B> {
    pub to: Option<usize>,
    pub data: B,
    pub segments: &'s [Range<usize>],
}

/// How [`stream_up`] paces its streams: children's segments are expected
/// `receive_ahead` segments before they are needed, and a step completes
/// what steps `send_lead` + 1 or more before it posted (the side stream
/// runs `send_lead` segments ahead).
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    pub receive_ahead: usize,
    pub send_lead: usize,
}

/// How far a stream's sends run ahead: a step completes what steps
/// `lead` + 1 or more before it posted, and a side stream posts its
/// segment s at step s − lead; lead = this over the segment length, at
/// most [`LEAD_SEGMENTS`] ([`lead`]). A process then has at most
/// 3·lead + 2 segments (about 3 × 2 MiB) in flight, whatever n is.
/// Simulated (two-tree, fat tree, p = 100, 16 MiB, 64 KiB segments,
/// reductions free), leads of 4 / 16 / 32 / 64 segments took 1.088 /
/// 1.024 / 1.015 / 1.012 times the time of a side stream posted whole;
/// with 2 MiB (32 segments) the torus took 1.036, the dragonfly 0.971,
/// the flat networks (100 and 10 Gbit/s) 1.000, and 2 MiB reduces
/// 1.000–1.005 (docs/smpi.md, "The two-tree reduce").
pub const LEAD_BYTES: usize = 2 << 20;

/// Most segments of lead, for short segments (`FASTRED_SEGMENT`): 2 MiB of
/// 64 KiB segments.
pub const LEAD_SEGMENTS: usize = 32;

/// The lead, in segments, for segments of `segment_len` bytes.
pub fn lead(segment_len: usize) -> usize {
    (LEAD_BYTES / segment_len.max(1)).clamp(1, LEAD_SEGMENTS)
}

/// [`reduce_up`]'s lead, in bytes of segments: how far it expects its
/// children's segments ahead and how many of its own it keeps in flight
/// beyond the current one; at least [`UP_TREE_LEAD_MIN`] segments, at most
/// [`LEAD_SEGMENTS`] ([`up_tree_lead`]). Shorter than the two-tree's: a
/// longer lead puts more segments on a link at once, which share it, so each
/// arrives later (the pipeline's 16 MiB reduce took 1.34x as long with 32
/// segments of lead as with 4). Simulated, p = 100, reductions free, the
/// model's segments (chain 11.6 / 32 KiB, Fibonacci tree 54 / 152 KiB at
/// 2 / 16 MiB), leads of 1-8 and 32 segments on the fat tree, torus and
/// dragonfly: the chain was fastest with 6-8 segments at 2 MiB and 3-4 at
/// 16 MiB, the Fibonacci tree with 2-4 (docs/smpi.md, "Streamed pipelines").
pub const UP_TREE_LEAD_BYTES: usize = 128 << 10;

/// Fewest segments of [`reduce_up`]'s lead.
pub const UP_TREE_LEAD_MIN: usize = 4;

/// [`reduce_up`]'s lead, in segments, for segments of `segment_len` bytes.
pub fn up_tree_lead(segment_len: usize) -> usize {
    (UP_TREE_LEAD_BYTES / segment_len.max(1)).clamp(UP_TREE_LEAD_MIN, LEAD_SEGMENTS)
}

/// How many segments ahead the two-tree's streams expect their children's
/// segments ([`stream_up`]), and its root the trees' tops': one, so that
/// the next segment travels while this one is folded in. Simulated
/// (p = 100, 2 and 16 MiB): 0.88-0.97 of the time with none on the fat
/// tree, torus and dragonfly with fastred's reductions charged, 0.94-0.98
/// with them free; two ahead took the fat tree's free 2 MiB reduce 1.14x
/// as long (docs/smpi.md, "Streamed pipelines").
pub const TWO_TREE_RECEIVES_AHEAD: usize = 1;

/// Reduce `up.data` up a tree (at most two `children`) in its segments: at
/// step s, segment s from every child (expected `pace.receive_ahead`
/// segments before, [`Inbox`]) is folded in, and the sum is posted to the
/// parent ([`Outbox`]) while the process goes on with s + 1; the `side`
/// stream (the two-tree's leaf half, which needs no step of this process)
/// has its segments up to s + `pace.send_lead` posted. Every wait is on a
/// lower node at the same step or on a step before s (the completions; a
/// child's side segments were posted ahead), so no process waits on one
/// that waits on it.
pub fn stream_up<'d>(
    t: &(impl Transport + ?Sized),
    op: &(impl Reducer + ?Sized),
    out: &mut dyn Outbox<'d>,
    up: Stream<&'d mut [u8]>,
    children: &[usize],
    side: Stream<&'d [u8]>,
    pace: Pace,
) -> MpiResult {
    debug_assert!(children.len() <= 2, "binary trees only");
    let longest_up = super::longest(up.segments);
    let (lead, ahead) = (pace.send_lead.max(1), pace.receive_ahead.clamp(1, up.segments.len().max(1)));
    let expect = |inbox: &mut dyn Inbox, s: usize| children.iter().try_for_each(|&child| inbox.expect(child, up.segments[s].len()));
    let (mut rest, mut offset, mut side_posted, mut posted) = (up.data, 0, 0, 0);
    // Messages posted by the end of each of the last lead + 1 steps.
    let mut posted_by = Pooled::new();
    posted_by.resize(lead + 1, 0);
    t.inbox(ahead * children.len(), longest_up, &mut |inbox| {
        (0..ahead.min(up.segments.len())).try_for_each(|s| expect(inbox, s))?;
        for s in 0..up.segments.len().max(side.segments.len()) {
            if s > lead {
                while posted - out.pending() < posted_by[(s - lead - 1) % (lead + 1)] {
                    out.complete_oldest()?;
                }
            }
            if let Some(to) = side.to {
                for seg in side.segments.iter().take(s + lead + 1).skip(side_posted) {
                    out.post(to, &side.data[seg.clone()])?;
                    side_posted += 1;
                    posted += 1;
                }
            }
            if let Some(seg) = up.segments.get(s) {
                let (done, later) = std::mem::take(&mut rest).split_at_mut(seg.end - offset);
                for _ in children {
                    op.reduce(inbox.take_oldest()?, done, false)?;
                }
                if s + ahead < up.segments.len() {
                    expect(inbox, s + ahead)?;
                }
                if let Some(to) = up.to {
                    out.post(to, done)?;
                    posted += 1;
                }
                (rest, offset) = (later, seg.end);
            }
            posted_by[s % (lead + 1)] = posted;
        }
        Ok(())
    })
}

/// Reduce `buf` up the tree in its segments: every child's segment s is
/// expected ([`Inbox`]) [`up_tree_lead`] segments before it is needed, so that it
/// travels while the process folds earlier ones (SMPI's `NTSL` chain posts
/// every receive at the start); at step s the children's segments s are
/// taken in `links.children` order and folded in, and the sum is posted to
/// the parent ([`Outbox`]), at most lead + 1 segments in flight
/// ([`stream_up`] with no side stream). A process
/// waits only on a child at the same step, or, completing its send of
/// segment s − lead − 1 before posting s, on its parent's step s − lead − 1,
/// which needs nothing of this process's later steps, so no process waits
/// on one that waits on it. The root ends with the reduction of all
/// processes' vectors.
pub fn reduce_up(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], links: &TreeLinks, segments: &[Range<usize>]) -> MpiResult {
    let lead = up_tree_lead(super::longest(segments));
    let pace = Pace { receive_ahead: lead, send_lead: lead };
    let mut whole = Some(buf);
    t.outbox(&mut |out| {
        let up = Stream { to: links.parent, data: whole.take().expect("an outbox runs its body once"), segments };
        stream_up(t, op, out, up, &links.children, Stream { to: None, data: &[], segments: &[] }, pace)
    })
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
