"""Photographs of a laid-out grid of word cards, as a spymaster's phone takes them, for the card
reader's benchmark and tests: the cards at their real size with the word twice (``cards.card``), on
a table's surface, seen through a phone's lens from up to 30 degrees off straight down, turned any
way, with blur, glare, a shadow, sensor noise and a phone's JPEG. Pillow and numpy draw it; the
lettering is DejaVu's, from Debian's fonts-dejavu-core.
"""

from __future__ import annotations

import io
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from ..cards import card
from ..cards.grid import homography
from ..cards.reading import CARDS, GRID

FONTS = Path("/usr/share/fonts/truetype/dejavu")
LABEL_FONT = "DejaVuSans-Bold.ttf"
TOP_FONT = "DejaVuSans.ttf"
PX_PER_MM = 5  # the flat grid is drawn at this resolution before the lens sees it
CAP_HEIGHT = 0.73  # DejaVu Sans's capitals, as a share of its em
FRAME = (2000, 1500)  # a phone's picture, scaled as the page sends it
SURFACES = ((92, 64, 42), (60, 44, 34), (46, 70, 52), (70, 72, 78), (120, 88, 60))  # woods, a felt, a grey top


@dataclass(frozen=True)
class Scene:
    """What the photograph shows and how it was taken. ``words`` in place order from the top-left
    card of the grid turned upright; ``turn`` in degrees counterclockwise (90: the phone held on its
    side); ``tilt`` how far from straight down the phone looked; ``fill`` the share of the picture the
    grid spans, across or down whichever it fills first (above 1, or off centre by ``shift``, it is cut
    off)."""

    words: tuple[str, ...]
    turn: float = 0.0
    tilt: float = 0.0
    tilt_towards: float = 0.0
    fill: float = 0.85
    shift: tuple[float, float] = (0.0, 0.0)
    blur: float = 0.0
    glare: float = 0.0
    shadow: float = 0.0
    light: float = 1.0
    noise: float = 2.0
    quality: int = 85
    portrait: bool = False
    surface: tuple[int, int, int] = SURFACES[0]
    gaps_mm: tuple[float, ...] = field(default=())  # each gap's width, across then down; the house's GAP_MM when empty


def _font(name: str, caps_mm: float) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONTS / name), round(caps_mm * PX_PER_MM / CAP_HEIGHT))


def _word(draw: ImageDraw.ImageDraw, box_mm: tuple[float, float, float, float], word: str, name: str,
          caps_mm: float, ink: tuple[int, int, int]) -> None:
    """The word in capitals, centred in the box, made smaller where it would not fit across."""
    left, top, right, bottom = (v * PX_PER_MM for v in box_mm)
    font = _font(name, caps_mm)
    text = word.upper()
    width = draw.textlength(text, font=font)
    if width > (right - left) * 0.94:
        font = _font(name, caps_mm * (right - left) * 0.94 / width)
    draw.text(((left + right) / 2, (top + bottom) / 2), text, font=font, fill=ink, anchor="mm")


def card_face(word: str, rng: random.Random) -> Image.Image:
    """One card, word upright on its label and upside down near its top, with a card's frame."""
    w, h = round(card.WIDTH_MM * PX_PER_MM), round(card.HEIGHT_MM * PX_PER_MM)
    tint = rng.randint(-12, 8)
    face = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(face)
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=3 * PX_PER_MM, fill=(224 + tint, 208 + tint, 172 + tint, 255))
    inset = 2 * PX_PER_MM
    draw.rounded_rectangle((inset, inset, w - 1 - inset, h - 1 - inset), radius=2 * PX_PER_MM,
                           outline=(150, 120, 80, 255), width=max(1, PX_PER_MM // 2))
    left, top, right, bottom = (v * PX_PER_MM for v in card.LABEL_MM)
    draw.rectangle((left, top, right, bottom), fill=(246, 244, 236, 255), outline=(160, 140, 110, 255))
    _word(draw, card.LABEL_MM, word, LABEL_FONT, card.LABEL_CAPS_MM, (20, 18, 16))
    upper = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    # drawn upright where the card turned round puts it, then turned: upside down near the top
    turned_box = (card.WIDTH_MM - card.TOP_WORD_MM[2], card.HEIGHT_MM - card.TOP_WORD_MM[3],
                  card.WIDTH_MM - card.TOP_WORD_MM[0], card.HEIGHT_MM - card.TOP_WORD_MM[1])
    _word(ImageDraw.Draw(upper), turned_box, word, TOP_FONT, card.TOP_CAPS_MM, (105, 80, 50))
    face.alpha_composite(upper.rotate(180))
    return face


def grid_image(scene: Scene, rng: random.Random) -> Image.Image:
    """The 25 cards laid flat, transparent between them, at ``PX_PER_MM``."""
    gaps = scene.gaps_mm or (card.GAP_MM,) * (2 * (GRID - 1))
    across, down = gaps[: GRID - 1], gaps[GRID - 1:]
    width_mm = GRID * card.WIDTH_MM + sum(across) + 4
    height_mm = GRID * card.HEIGHT_MM + sum(down) + 4
    flat = Image.new("RGBA", (round(width_mm * PX_PER_MM), round(height_mm * PX_PER_MM)), (0, 0, 0, 0))
    for place, word in enumerate(scene.words):
        row, column = divmod(place, GRID)
        x = 2 + column * card.WIDTH_MM + sum(across[:column]) + rng.uniform(-0.8, 0.8)
        y = 2 + row * card.HEIGHT_MM + sum(down[:row]) + rng.uniform(-0.8, 0.8)
        face = card_face(word, rng).rotate(rng.uniform(-1.5, 1.5), resample=Image.Resampling.BICUBIC, expand=True)
        flat.alpha_composite(face, (round(x * PX_PER_MM), round(y * PX_PER_MM)))
    return flat


def _lens(size: tuple[int, int], scene: Scene) -> np.ndarray:
    """Where each corner of the flat grid lands in the picture: the grid turned, tilted away from the
    phone by ``tilt`` towards ``tilt_towards`` and seen through a pinhole, then scaled and placed."""
    w, h = size
    corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]], dtype=float)
    turn = math.radians(-scene.turn)
    spin = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    turned = corners @ spin.T
    towards = math.radians(scene.tilt_towards)
    axis = np.array([math.cos(towards), math.sin(towards)])
    along = turned @ axis  # the part of each corner that leans away
    across = turned - np.outer(along, axis)
    tilt = math.radians(scene.tilt)
    depth = along * math.sin(tilt)
    distance = 1.6 * max(w, h)  # a phone's lens: about 65 degrees across, held at arm's length
    flat = (across + np.outer(along * math.cos(tilt), axis)) * (distance / (distance + depth))[:, None]
    frame = FRAME[::-1] if scene.portrait else FRAME
    span = flat.max(axis=0) - flat.min(axis=0)
    scale = scene.fill * min(frame[0] / span[0], frame[1] / span[1])
    centre = (flat.max(axis=0) + flat.min(axis=0)) / 2
    placed = (flat - centre) * scale + np.array(frame) / 2 + np.array(scene.shift) * np.array(frame)
    return np.asarray(placed)


def _soft_spot(frame: tuple[int, int], rng: random.Random, size: float) -> np.ndarray:
    """A soft elliptic patch somewhere in the picture, 1 at its heart, fading to 0."""
    w, h = frame
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
    rx, ry = size * w * rng.uniform(0.6, 1.2), size * h * rng.uniform(0.6, 1.2)
    spot: np.ndarray = np.exp(-(((xs - cx) / rx) ** 2 + ((ys - cy) / ry) ** 2) * 2.5)
    return spot


def photograph(scene: Scene, seed: int = 0) -> bytes:
    """The scene as the phone's JPEG."""
    rng = random.Random(seed)
    frame = FRAME[::-1] if scene.portrait else FRAME
    flat = grid_image(scene, rng)
    fw, fh = flat.size
    placed = _lens(flat.size, scene)
    source = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], dtype=float)
    back = homography(placed, source)  # Pillow asks where each pixel of the picture comes from
    coefficients = tuple(float(v) for v in (back / back[2, 2]).reshape(9)[:8])
    seen = flat.transform(frame, Image.Transform.PERSPECTIVE, coefficients, resample=Image.Resampling.BICUBIC)
    w, h = frame
    grain = np.random.default_rng(seed).normal(0, 1, (h // 8 + 1, w // 8 + 1)).astype(np.float32)
    wood = np.asarray(Image.fromarray(grain).resize((w, h), Image.Resampling.BICUBIC), dtype=np.float32)
    table = np.clip(np.array(scene.surface, dtype=np.float32)[None, None, :] * (1 + 0.08 * wood[:, :, None]), 0, 255)
    picture = Image.fromarray(table.astype(np.uint8), "RGB")
    picture.paste(seen, (0, 0), seen)
    pixels = np.asarray(picture, dtype=np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    falloff = 1 - 0.25 * (((xs - w / 2) / w) ** 2 + ((ys - h / 2) / h) ** 2) * 4 * rng.uniform(0.2, 1)
    light = scene.light * falloff
    if scene.shadow:
        light = light * (1 - scene.shadow * _soft_spot(frame, rng, 0.35))
    pixels = pixels * light[:, :, None]
    if scene.glare:
        pixels = pixels + scene.glare * 255 * _soft_spot(frame, rng, 0.12)[:, :, None]
    pixels = pixels + np.random.default_rng(seed + 1).normal(0, scene.noise, pixels.shape)
    picture = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "RGB")
    if scene.blur:
        picture = picture.filter(ImageFilter.GaussianBlur(scene.blur))
    out = io.BytesIO()
    picture.save(out, "JPEG", quality=scene.quality)
    return out.getvalue()


def deal(deck: list[str], rng: random.Random) -> tuple[str, ...]:
    """25 different words of a deck, in place order."""
    return tuple(rng.sample(deck, CARDS))
