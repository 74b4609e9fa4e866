"""Where the 25 cards are in a picture, each one's corners and which way its words read: numpy on
the picture's grey pixels. Cards are lighter than the table they lie on, so each is a light patch
of about the same size; its outline's four corners give the card, its light label (``card``)
which of its long sides is the bottom, and the grid's own four corners each card's place."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import card
from .reading import CARDS, GRID

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]  # top-left, top-right, bottom-right, bottom-left, as the words read


@dataclass(frozen=True)
class Found:
    """What the picture shows: each card's corners (in the picture's pixels), in place order from
    the top-left of the grid turned upright, or why not (``cut_off``, ``slanted``, ``missing``)."""

    quads: tuple[Quad, ...] = ()
    cut_off: bool = False
    slanted: bool = False
    missing: bool = False


def otsu(grey: np.ndarray) -> int:
    """The grey level that best splits the picture in two (Otsu's method)."""
    counts = np.bincount(grey.ravel(), minlength=256).astype(float)
    levels = np.arange(256)
    below = np.cumsum(counts)
    total = below[-1]
    mass = np.cumsum(counts * levels)
    above = total - below
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (mass[-1] * below / total - mass) ** 2 / (below * above)
    return int(np.nanargmax(between[:-1]))


def lighter(grey: np.ndarray) -> np.ndarray:
    """Where the picture is lighter than its surroundings (a box some half a card wide, so a card in
    a shadow is not measured against its lit neighbours) and than its dark half by a margin: the
    cards, under a shadow or beside a glare alike (a card's plain middle may drop out: its outline
    stays one patch)."""
    size = max(3, round(max(grey.shape) / 20))
    padded = np.pad(grey.astype(np.float64), size, mode="edge")
    summed = padded.cumsum(0).cumsum(1)
    area = summed[2 * size:, 2 * size:] - summed[:-2 * size, 2 * size:] - summed[2 * size:, :-2 * size] \
        + summed[:-2 * size, :-2 * size]
    around = area / (2 * size) ** 2
    around = around[: grey.shape[0], : grey.shape[1]]
    mask: np.ndarray = (grey > around + 6) & (grey > 0.5 * otsu(grey))
    return mask


def components(mask: np.ndarray) -> np.ndarray:
    """Each pixel of ``mask`` labelled with its 4-connected patch (the least flat index in it);
    -1 outside. Labels spread to neighbours and jump along what they point to until settled."""
    h, w = mask.shape
    outside = h * w
    labels = np.where(mask, np.arange(outside).reshape(h, w), outside)
    while True:
        least = labels.copy()
        np.minimum(least[1:], labels[:-1], out=least[1:])
        np.minimum(least[:-1], labels[1:], out=least[:-1])
        np.minimum(least[:, 1:], labels[:, :-1], out=least[:, 1:])
        np.minimum(least[:, :-1], labels[:, 1:], out=least[:, :-1])
        least = np.where(mask, least, outside)
        flat = np.append(least.ravel(), outside)
        least = flat[np.minimum(least, outside)]  # jump: a pixel takes the label its label has
        if np.array_equal(least, labels):
            return np.where(mask, labels, -1)
        labels = least


def hull(points: np.ndarray) -> list[Point]:
    """The convex hull, clockwise as a picture's y runs down (Andrew's monotone chain)."""
    ordered = sorted({(float(x), float(y)) for x, y in points})
    if len(ordered) < 3:
        return ordered

    def chain(run: list[Point]) -> list[Point]:
        out: list[Point] = []
        for p in run:
            while len(out) >= 2 and _cross(out[-2], out[-1], p) <= 0:
                out.pop()
            out.append(p)
        return out[:-1]

    return chain(ordered) + chain(ordered[::-1])


def _cross(o: Point, a: Point, b: Point) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def four_corners(outline: list[Point]) -> list[Point]:
    """The outline cut to its four corners: the vertex that adds least area goes, until four are
    left (a card's rounded corners and a blurred edge are small areas)."""
    corners = list(outline)
    while len(corners) > 4:
        n = len(corners)
        losses = [abs(_cross(corners[i - 1], corners[i], corners[(i + 1) % n])) for i in range(n)]
        corners.pop(losses.index(min(losses)))
    return corners


def homography(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The 3x3 projective map taking the four ``source`` points to the four ``target`` points."""
    rows = []
    for (x, y), (u, v) in zip(source, target, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    solved = np.linalg.solve(np.array(rows, dtype=float), np.asarray(target, dtype=float).reshape(8))
    return np.append(solved, 1.0).reshape(3, 3)


def _outline(labels: np.ndarray, label: int) -> list[Point]:
    """A patch's convex outline, from each of its rows' first and last pixels."""
    ys, xs = np.nonzero(labels == label)
    order = np.lexsort((xs, ys))
    ys, xs = ys[order], xs[order]
    starts = np.flatnonzero(np.diff(ys, prepend=-1))
    ends = np.append(starts[1:] - 1, len(ys) - 1)
    points = np.concatenate([np.stack([xs[starts], ys[starts]], 1), np.stack([xs[ends] + 1, ys[ends]], 1),
                             np.stack([xs[starts], ys[starts] + 1], 1), np.stack([xs[ends] + 1, ys[ends] + 1], 1)])
    return hull(points)


def _long_side_first(corners: list[Point]) -> list[Point]:
    """The four corners from one end of a long side, clockwise."""
    side = [float(np.hypot(*np.subtract(corners[(i + 1) % 4], corners[i]))) for i in range(4)]
    return corners if side[0] + side[2] >= side[1] + side[3] else corners[1:] + corners[:1]


def _band(grey: np.ndarray, quad: list[Point], box_mm: tuple[float, float, float, float]) -> float:
    """The mean grey of a box of the card (in its millimetres), the card's corners ``quad``
    (top-left first, clockwise)."""
    to_picture = homography(np.array([[0, 0], [card.WIDTH_MM, 0], [card.WIDTH_MM, card.HEIGHT_MM],
                                      [0, card.HEIGHT_MM]]), np.array(quad))
    left, top, right, bottom = box_mm
    xs, ys = np.meshgrid(np.linspace(left, right, 12), np.linspace(top, bottom, 5))
    spots = to_picture @ np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
    px = np.clip((spots[0] / spots[2]).astype(int), 0, grey.shape[1] - 1)
    py = np.clip((spots[1] / spots[2]).astype(int), 0, grey.shape[0] - 1)
    return float(grey[py, px].mean())


def _upside_down(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    left, top, right, bottom = box
    return card.WIDTH_MM - right, card.HEIGHT_MM - bottom, card.WIDTH_MM - left, card.HEIGHT_MM - top


def _upright(grey: np.ndarray, corners: list[Point]) -> list[Point]:
    """The card's corners turned so its label, the lighter of its two word bands, is at the bottom."""
    first = _long_side_first(corners)
    turned = first[2:] + first[:2]
    label = _band(grey, first, card.LABEL_MM)
    other = _band(grey, first, _upside_down(card.LABEL_MM))
    return first if label >= other else turned


def find(grey: np.ndarray, scale: float) -> Found:
    """The cards in ``grey`` (a picture shrunk for speed), their corners scaled by ``scale`` to the
    picture they are read from."""
    h, w = grey.shape
    mask = lighter(grey)
    eroded = mask.copy()  # one pixel off every edge: cards that blur into each other come apart
    eroded[1:] &= mask[:-1]
    eroded[:-1] &= mask[1:]
    eroded[:, 1:] &= mask[:, :-1]
    eroded[:, :-1] &= mask[:, 1:]
    labels = components(eroded)
    names, areas = np.unique(labels[labels >= 0], return_counts=True)
    large = areas >= h * w * 0.002
    pieces = names[areas >= h * w * 0.0005]  # a card cut by the picture's edge may be no more
    names, areas = names[large], areas[large]
    if len(names) < CARDS:
        return Found(missing=True, cut_off=_touches_edge(labels, pieces))
    typical = float(np.median(np.sort(areas)[-CARDS:]))
    alike = (areas > typical * 0.25) & (areas < typical * 4)  # a 30-degree slant: near cards 3 times the far ones
    names, areas = names[alike], areas[alike]
    if len(names) < CARDS:
        return Found(missing=True, cut_off=_touches_edge(labels, pieces))
    if len(names) > CARDS:
        nearest = np.argsort(np.abs(np.log(areas / typical)))[:CARDS]
        names = names[nearest]
    if _touches_edge(labels, names):
        return Found(cut_off=True)
    outlines = [_outline(labels, int(name)) for name in names]
    grid_corners = four_corners(hull(np.array([p for outline in outlines for p in outline])))
    if _slanted(grid_corners):
        return Found(slanted=True)
    cards = [_upright(grey, four_corners(outline)) for outline in outlines]
    if _foreshortened(cards):
        return Found(slanted=True)
    placed = _places(cards, grid_corners)
    if placed is None:
        return Found(missing=True)
    return Found(quads=tuple(_as_quad([(x * scale, y * scale) for x, y in cards[i]]) for i in placed))


def _as_quad(points: list[Point]) -> Quad:
    a, b, c, d = points
    return a, b, c, d


def _touches_edge(labels: np.ndarray, names: np.ndarray) -> bool:
    edge = np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
    return bool(np.isin(edge, names).any())


def _slanted(grid_corners: list[Point]) -> bool:
    """A grid seen too far from straight down: its far side much shorter than its near side."""
    if len(grid_corners) < 4:
        return True
    side = [float(np.hypot(*np.subtract(grid_corners[(i + 1) % 4], grid_corners[i]))) for i in range(4)]
    return min(side[0], side[2]) < 0.55 * max(side[0], side[2]) or min(side[1], side[3]) < 0.55 * max(side[1], side[3])


def _foreshortened(cards: list[list[Point]]) -> bool:
    """Cards seen more than some 50 degrees from straight down: their width to their height (as their
    words read) is off the printed card's by more than cos 50 degrees either way."""
    across = np.mean([np.hypot(*np.subtract(c[1], c[0])) + np.hypot(*np.subtract(c[2], c[3])) for c in cards])
    down = np.mean([np.hypot(*np.subtract(c[3], c[0])) + np.hypot(*np.subtract(c[2], c[1])) for c in cards])
    seen = float(across / down) / (card.WIDTH_MM / card.HEIGHT_MM)
    return not 0.64 < seen < 1 / 0.64


def _places(cards: list[list[Point]], grid_corners: list[Point]) -> list[int] | None:
    """The cards' indexes in place order: the grid's corners turned as most cards' words read, each
    card's middle mapped into the grid's square of 5 by 5; None unless every place has one card."""
    ups = np.array([np.subtract(np.mean(c[:2], axis=0), np.mean(c[2:], axis=0)) for c in cards])
    up = ups.sum(axis=0)
    middles = np.array([np.mean(c, axis=0) for c in cards])
    centre = np.mean(grid_corners, axis=0)

    def tops(start: int) -> float:
        turned = grid_corners[start:] + grid_corners[:start]
        return float(np.dot(np.mean(turned[:2], axis=0) - centre, up))

    start = max(range(4), key=tops)
    corners = grid_corners[start:] + grid_corners[:start]
    to_square = homography(np.array(corners), np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]]))
    spots = to_square @ np.vstack([middles.T, np.ones(len(cards))])
    columns = np.clip((spots[0] / spots[2]).astype(int), 0, GRID - 1)
    rows = np.clip((spots[1] / spots[2]).astype(int), 0, GRID - 1)
    places = rows * GRID + columns
    if len(set(places.tolist())) != CARDS:
        return None
    return [int(i) for i in np.argsort(places)]
