"""Ids a site's state hands out for what the user creates: counted per kind in the state itself (its
`next_ids`), so the same seed and the same requests give the same ids."""

from typing import ClassVar, Protocol


class _Counted(Protocol):
    next_ids: dict[str, int]
    id_width: ClassVar[int]


class TakesIds:
    """Mixin for a site's state model (`class ShopState(TakesIds, BaseModel)`) that declares
    `next_ids: dict[str, int]` itself: the field stays where the state puts it, so its JSON keeps its order.
    `id_width` is the zero-padded width of the number when a call names none (0: no padding)."""

    id_width: ClassVar[int] = 4

    def take_id(self: _Counted, counter: str, prefix: str, width: int | None = None) -> str:
        """The next id of `counter`: 'ap0007' (`prefix` 'ap', width 4), 'o1004', 'f3' (width 0)."""
        value = self.next_ids.get(counter, 1)
        self.next_ids[counter] = value + 1
        return f"{prefix}{value:0{self.id_width if width is None else width}d}"
