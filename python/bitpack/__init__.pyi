from typing import Any, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
FORMATS: Tuple[str, ...]
MX_FORMATS: Tuple[str, ...]

Format = Union[str, np.dtype, type]
Mode = Literal["nearest", "satfinite"]
ScaleRule = Literal["floor", "ceil", "even", "rceil"]
TinyScale = Literal["flush", "smallest", "min_normal"]

class Array(np.ndarray):
    bitpack_format: Optional[str]
    bitpack_cols: Optional[int]
    def __dlpack__(
        self,
        *,
        stream: Optional[int] = ...,
        max_version: Optional[Tuple[int, int]] = ...,
        dl_device: Optional[Tuple[int, int]] = ...,
        copy: Optional[bool] = ...,
    ) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...

def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
def format_bits(fmt: Format) -> int: ...
def format_dtype(fmt: Format) -> np.dtype: ...
def encode(
    x: npt.ArrayLike,
    fmt: Format,
    mode: Mode = "nearest",
    stochastic_seed: Optional[int] = None,
    packed: bool = False,
) -> Array: ...
def decode(
    codes: npt.ArrayLike,
    fmt: Optional[Format] = None,
    dtype: npt.DTypeLike = np.float32,
    count: Optional[int] = None,
) -> np.ndarray: ...

class _BlockScaled:
    """What MxArray and Nvfp4Array share: values, one scale per block."""
    @property
    def fmt(self) -> str: ...
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def size(self) -> int: ...
    @property
    def codes(self) -> Array: ...
    @property
    def scales(self) -> Array: ...
    def scales_swizzled(self) -> np.ndarray: ...
    def dequantize(self, dtype: npt.DTypeLike = np.float32) -> np.ndarray: ...

class MxArray(_BlockScaled):
    @classmethod
    def from_parts(
        cls,
        codes: npt.ArrayLike,
        scales: npt.ArrayLike,
        fmt: Format,
        shape: Sequence[int],
        axis: int = -1,
    ) -> "MxArray": ...
    @property
    def axis(self) -> int: ...
    def requantize(
        self,
        x: npt.ArrayLike,
        scale_rule: ScaleRule = "floor",
        stochastic_seed: Optional[int] = None,
    ) -> None: ...

class Nvfp4Array(_BlockScaled):
    @classmethod
    def from_parts(
        cls,
        codes: npt.ArrayLike,
        scales: npt.ArrayLike,
        tensor_scale: float,
        shape: Sequence[int],
    ) -> "Nvfp4Array": ...
    @property
    def tensor_scale(self) -> float: ...
    def requantize(
        self,
        x: npt.ArrayLike,
        tile: Tuple[int, int] = (1, 16),
        tensor_scale: Optional[float] = None,
        tiny_scale: TinyScale = "flush",
        stochastic_seed: Optional[int] = None,
    ) -> None: ...

def mx_quantize(
    x: npt.ArrayLike,
    fmt: Format,
    axis: int = -1,
    scale_rule: ScaleRule = "floor",
    stochastic_seed: Optional[int] = None,
) -> MxArray: ...
def nvfp4_quantize(
    x: npt.ArrayLike,
    tile: Tuple[int, int] = (1, 16),
    tensor_scale: Optional[float] = None,
    tiny_scale: TinyScale = "flush",
    stochastic_seed: Optional[int] = None,
) -> Nvfp4Array: ...
def pack(
    values: npt.ArrayLike,
    bits: int,
    signed: bool = False,
    overflow: Literal["error", "wrap"] = "error",
) -> np.ndarray: ...
def unpack(packed: npt.ArrayLike, bits: int, n: int, signed: bool = False) -> np.ndarray: ...
def from_dlpack(x: Any) -> np.ndarray: ...
