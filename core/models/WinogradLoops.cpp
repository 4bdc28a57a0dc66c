// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/WinogradLoops.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/common/CpuClones.h"
#include "core/common/FloatVector.h"
#include "core/models/PanelProduct.h"

// Built with -ffp-contract=fast (core/CMakeLists.txt): `acc += a * b` is one fused
// multiply-add where the CPU has it. Results differ from LibTorch's convolution in the last
// bits (another algorithm: Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks",
// 2015); they are the same for any number of threads, since every sum over images runs in an
// order fixed by the images alone (WinogradConv.cpp).

namespace ensemble::winograd_loops {
namespace {

// Everything the cloned functions below call is inlined into them (ENSEMBLELAB_ALWAYS_INLINE,
// PanelProduct.h), so it is built for each clone's instruction set.

using Vec = FloatVector;
using WideVector = WideFloatVector;
using panel_product::product;
static_assert(kFloatVectorWidth == kChannelBlock, "a channel block is one vector");

// The four 1-D transforms of F(2x2, 3x3), each applied to the rows of a block and then to its
// columns (a 2-D transform X^T d X is the 1-D one along both axes). `T` is a float or a vector.

/// B^T d: the input's 4 values to 4 frequencies.
template <typename T>
inline void inputTransform(const T (&d)[4], T (&out)[4]) {
  out[0] = d[0] - d[2];
  out[1] = d[1] + d[2];
  out[2] = d[2] - d[1];
  out[3] = d[1] - d[3];
}

/// Its transpose, B f: 4 frequencies' gradient back to the input's 4 values.
template <typename T>
inline void inputTransformTransposed(const T (&f)[4], T (&out)[4]) {
  out[0] = f[0];
  out[1] = f[1] - f[2] + f[3];
  out[2] = f[1] + f[2] - f[0];
  out[3] = -f[3];
}

/// A^T m: 4 frequencies to the 2 outputs of a tile.
template <typename T>
inline void outputTransform(const T (&m)[4], T (&out)[2]) {
  out[0] = m[0] + m[1] + m[2];
  out[1] = m[1] - m[2] - m[3];
}

/// Its transpose, A y: the 2 outputs' gradient to 4 frequencies.
template <typename T>
inline void outputTransformTransposed(const T (&y)[2], T (&out)[4]) {
  out[0] = y[0];
  out[1] = y[0] + y[1];
  out[2] = y[0] - y[1];
  out[3] = -y[1];
}

/// Applies `transform` (In values to Out) to each row of an In x In block, then to each
/// column of the result: row-major in and out.
template <int In, int Out, typename T, typename Transform>
inline void transform2d(const T (&in)[In * In], T (&out)[Out * Out], const Transform& transform) {
  T rows[Out * In];  // the transform down each column first: rows[o * In + column]
  for (int column = 0; column < In; ++column) {
    T line[In], result[Out];
    for (int i = 0; i < In; ++i) line[i] = in[i * In + column];
    transform(line, result);
    for (int o = 0; o < Out; ++o) rows[o * In + column] = result[o];
  }
  for (int o = 0; o < Out; ++o) {
    T line[In], result[Out];
    for (int i = 0; i < In; ++i) line[i] = rows[o * In + i];
    transform(line, result);
    for (int p = 0; p < Out; ++p) out[o * Out + p] = result[p];
  }
}

/// Tiles per block: the block's transformed input and products stay in the core's L2 cache
/// (16 x 36 x 64 floats is 147 KB), and 36 rows are nine full register panels.
constexpr int64_t kTilesPerBlock = 36;

/// Where one tile sits: its image and the top-left pixel of its 2x2 output.
struct TilePlace {
  int64_t image = 0, row = 0, column = 0;
};

TilePlace placeOf(int64_t tile, const WinogradShape& shape) {
  const int64_t perImage = shape.tilesPerImage(), wide = shape.tilesWide();
  const int64_t within = tile % perImage;
  return {tile / perImage, 2 * (within / wide), 2 * (within % wide)};
}

/// Where pixel (row, column) of `image` starts in a channels-last batch of `channels`.
inline int64_t pixelOffset(int64_t image, int64_t row, int64_t column, int64_t channels, const WinogradShape& shape) {
  return ((image * shape.height + row) * shape.width + column) * channels;
}

/// The 16 pixels (4x4, row-major) a tile's transform reads, channels-last: pointers into
/// `images`, or to `zeros` (a row of channels of zeros) outside the image (the padding).
void inputWindow(const float* images, const float* zeros, int64_t channels, const TilePlace& place,
                 const WinogradShape& shape, const float* (&pixels)[16]) {
  for (int i = 0; i < 4; ++i) {
    const int64_t row = place.row - 1 + i;
    for (int j = 0; j < 4; ++j) {
      const int64_t column = place.column - 1 + j;
      const bool inside = row >= 0 && row < shape.height && column >= 0 && column < shape.width;
      pixels[i * 4 + j] =
          inside ? images + pixelOffset(place.image, row, column, channels, shape) : zeros;
    }
  }
}

/// One channel block of tile `t`'s 16 frequencies in a block's buffer [16][kTilesPerBlock][channels]
/// (v, m and their gradients): the address every transform below reads or writes them at.
inline int64_t frequencyOffset(int f, int64_t t, int64_t channels, int64_t block) {
  return (f * kTilesPerBlock + t) * channels + block;
}

template <typename V>
ENSEMBLELAB_ALWAYS_INLINE void loadFrequencies(const float* buffer, int64_t t, int64_t channels, int64_t block,
                                               V (&freq)[16]) {
  for (int f = 0; f < kFrequencies; ++f) freq[f] = loadLanes<V>(buffer + frequencyOffset(f, t, channels, block));
}

template <typename V>
ENSEMBLELAB_ALWAYS_INLINE void storeFrequencies(float* buffer, int64_t t, int64_t channels, int64_t block,
                                                const V (&freq)[16]) {
  for (int f = 0; f < kFrequencies; ++f) storeLanes<V>(buffer + frequencyOffset(f, t, channels, block), freq[f]);
}

/// B^T d B of every tile in [firstTile, firstTile + tiles), into v [16][kTilesPerBlock][in],
/// kLanes<V> channels at a time.
template <typename V>
ENSEMBLELAB_ALWAYS_INLINE void transformInputs(int64_t firstTile, int64_t tiles, const float* input,
                                               const float* zeros, float* v, const WinogradShape& shape) {
  const int64_t channels = shape.inChannels;
  for (int64_t t = 0; t < tiles; ++t) {
    const float* pixels[16];
    inputWindow(input, zeros, channels, placeOf(firstTile + t, shape), shape, pixels);
    for (int64_t block = 0; block < channels; block += kLanes<V>) {
      V d[16], f[16];
      for (int p = 0; p < 16; ++p) d[p] = loadLanes<V>(pixels[p] + block);
      transform2d<4, 4>(d, f, [](const V(&in)[4], V(&out)[4]) { inputTransform(in, out); });
      storeFrequencies(v, t, channels, block, f);
    }
  }
}

/// A tile's four outputs are one window of a 2x2 pool: its top-left pixel sits at an even row and
/// column. Whether the pool (floor, as avg_pool2d) covers the tile: where the height or width is
/// odd, the last row or column of tiles lies outside every window.
inline bool pooled(const TilePlace& place, const WinogradShape& shape) {
  return place.row + 1 < shape.height && place.column + 1 < shape.width;
}

/// Where the pooling window of the tile at `place` writes, in a channels-last output of `channels`.
inline int64_t pooledOffset(const TilePlace& place, int64_t channels, const WinogradShape& shape) {
  return ((place.image * (shape.height / 2) + place.row / 2) * (shape.width / 2) + place.column / 2) * channels;
}

/// A 32-bit integer per lane of V, all bits set where a comparison holds.
template <typename V>
using LaneInts = decltype(V{} <= V{});

/// Lane l's bit, 1 << l.
template <typename V>
ENSEMBLELAB_ALWAYS_INLINE LaneInts<V> laneBits() {
  LaneInts<V> bits{};
  for (int lane = 0; lane < kLanes<V>; ++lane) bits[lane] = 1 << lane;
  return bits;
}

/// ReLU's mask is a bit per value (set where the value is <= 0, the values ReLU stops): a pixel's
/// channel c at bit c % 8 of its byte c / 8, so either vector width reads what the other wrote;
/// a thirty-second of the output it stands for. This is where a pixel's bytes start.
inline int64_t maskOffset(int64_t image, int64_t row, int64_t column, int64_t channels, const WinogradShape& shape) {
  return pixelOffset(image, row, column, channels, shape) / 8;
}

/// The OR of all lanes, four at a time first (as element by element GCC 12 takes each lane out
/// on its own, a third slower forward).
template <typename I>
ENSEMBLELAB_ALWAYS_INLINE int orOfLanes(I lanes) {
  typedef int FourInts __attribute__((vector_size(16)));
  FourInts sum{};
  for (std::size_t part = 0; part < sizeof(I) / sizeof(FourInts); ++part) {
    FourInts four;
    std::memcpy(&four, reinterpret_cast<const char*>(&lanes) + part * sizeof four, sizeof four);
    sum |= four;
  }
  return (sum[0] | sum[1]) | (sum[2] | sum[3]);
}

template <typename V>
ENSEMBLELAB_ALWAYS_INLINE void storeMask(uint8_t* to, LaneInts<V> stopped) {
  const int packed = orOfLanes(stopped & laneBits<V>());
  for (int byte = 0; byte < kLanes<V> / 8; ++byte) to[byte] = uint8_t(packed >> (8 * byte));
}

template <typename V>
ENSEMBLELAB_ALWAYS_INLINE LaneInts<V> loadMask(const uint8_t* from) {
  int packed = 0;
  for (int byte = 0; byte < kLanes<V> / 8; ++byte) packed |= int(from[byte]) << (8 * byte);
  return ((LaneInts<V>{} + packed) & laneBits<V>()) != 0;
}

/// The forward's last stage, one tile's 2x2 outputs (bias added, row-major) and one channel
/// block at a time: the convolution's pixels, those inside the image.
struct ConvolutionOutput {
  float* output;

  template <typename V>
  ENSEMBLELAB_ALWAYS_INLINE void store(const TilePlace& place, int64_t block, const V (&y)[4], int64_t channels,
                                       const WinogradShape& shape) const {
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        const int64_t row = place.row + i, column = place.column + j;
        if (row < shape.height && column < shape.width) {
          storeLanes<V>(output + pixelOffset(place.image, row, column, channels, shape) + block, y[i * 2 + j]);
        }
      }
    }
  }
};

/// Or avg_pool2d(relu(y), 2), the window summed in row order and divided by 4 as
/// ReluAvgPoolLoops.cpp does (the same bits), and ReLU's mask where `reluMask` is given.
struct ReluPoolOutput {
  float* pooledOutput;
  uint8_t* reluMask;

  template <typename V>
  ENSEMBLELAB_ALWAYS_INLINE void store(const TilePlace& place, int64_t block, const V (&y)[4], int64_t channels,
                                       const WinogradShape& shape) const {
    if (!pooled(place, shape)) return;
    V sum = y[0] <= V{} ? V{} : y[0];  // NaN passes ReLU, as in torch::relu
    for (int p = 1; p < 4; ++p) sum += y[p] <= V{} ? V{} : y[p];
    storeLanes<V>(pooledOutput + pooledOffset(place, channels, shape) + block, sum / 4.f);
    if (reluMask == nullptr) return;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        const int64_t offset = maskOffset(place.image, place.row + i, place.column + j, channels, shape) + block / 8;
        storeMask<V>(reluMask + offset, y[i * 2 + j] <= V{});
      }
    }
  }
};

/// A^T m A of every tile's 16 products m ([16][kTilesPerBlock][out]), plus the bias, into
/// `output` (ConvolutionOutput or ReluPoolOutput).
template <typename V, typename Output>
ENSEMBLELAB_ALWAYS_INLINE void transformOutputs(int64_t firstTile, int64_t tiles, const float* m, const float* bias,
                                                const Output& output, const WinogradShape& shape) {
  const int64_t out = shape.outChannels;
  for (int64_t t = 0; t < tiles; ++t) {
    const TilePlace place = placeOf(firstTile + t, shape);
    for (int64_t block = 0; block < out; block += kLanes<V>) {
      V freq[16], y[4];
      loadFrequencies(m, t, out, block, freq);
      transform2d<4, 2>(freq, y, [](const V(&i)[4], V(&o)[2]) { outputTransform(i, o); });
      const V b = loadLanes<V>(bias + block);
      for (int p = 0; p < 4; ++p) y[p] += b;
      output.template store<V>(place, block, y, out, shape);
    }
  }
}

/// Where the backward's output gradient comes from, one tile at a time (`at`), then one channel
/// block of its 2x2 pixels (row-major) at a time (`load`): the convolution's gradient, zero
/// beyond the image's edge.
struct ConvolutionGradient {
  const float* gradOutput;
  const float* zeros;  // a row of channels of zeros

  struct Tile {
    const float* pixels[4];

    template <typename V>
    ENSEMBLELAB_ALWAYS_INLINE void load(int64_t block, V (&dy)[4]) const {
      for (int p = 0; p < 4; ++p) dy[p] = loadLanes<V>(pixels[p] + block);
    }
  };

  ENSEMBLELAB_ALWAYS_INLINE Tile at(const TilePlace& place, int64_t channels, const WinogradShape& shape) const {
    Tile tile;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        const int64_t row = place.row + i, column = place.column + j;
        const bool inside = row < shape.height && column < shape.width;
        tile.pixels[i * 2 + j] = inside ? gradOutput + pixelOffset(place.image, row, column, channels, shape) : zeros;
      }
    }
    return tile;
  }
};

/// Or the gradient through ReluPoolOutput: a quarter of the pooled gradient where ReLU passed
/// the value, else zero, as ReluAvgPoolLoops.cpp computes it (the same bits); zero for a tile
/// outside every pooling window.
struct ReluPoolGradient {
  const float* gradPooled;
  const uint8_t* reluMask;
  const float* zeros;

  struct Tile {
    const float* gradient;  // the window's pooled gradient, or zeros outside the pool
    const uint8_t* masks[4];

    template <typename V>
    ENSEMBLELAB_ALWAYS_INLINE void load(int64_t block, V (&dy)[4]) const {
      const V quarter = loadLanes<V>(gradient + block) * 0.25f;  // x / 4 bit for bit, a power of two
      for (int p = 0; p < 4; ++p) dy[p] = loadMask<V>(masks[p] + block / 8) ? V{} : quarter;
    }
  };

  ENSEMBLELAB_ALWAYS_INLINE Tile at(const TilePlace& place, int64_t channels, const WinogradShape& shape) const {
    Tile tile;
    const bool inside = pooled(place, shape);
    tile.gradient = inside ? gradPooled + pooledOffset(place, channels, shape) : zeros;
    const auto* const noMask = reinterpret_cast<const uint8_t*>(zeros);  // outside the pool: 0 x 0.25 either way
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        tile.masks[i * 2 + j] =
            inside ? reluMask + maskOffset(place.image, place.row + i, place.column + j, channels, shape) : noMask;
      }
    }
    return tile;
  }
};

/// The output's gradient per tile (ConvolutionGradient or ReluPoolGradient), A dy A^T, into gradM
/// ([16][kTilesPerBlock][out]), and its sum into the bias's gradient.
template <typename V, typename Gradient>
ENSEMBLELAB_ALWAYS_INLINE void transformOutputGradients(int64_t firstTile, int64_t tiles, const Gradient& gradient,
                                                        float* gradM, float* gradBias, const WinogradShape& shape) {
  const int64_t out = shape.outChannels;
  for (int64_t t = 0; t < tiles; ++t) {
    const auto tile = gradient.at(placeOf(firstTile + t, shape), out, shape);
    for (int64_t block = 0; block < out; block += kLanes<V>) {
      V dy[4], freq[16];
      tile.template load<V>(block, dy);
      storeLanes<V>(gradBias + block, loadLanes<V>(gradBias + block) + ((dy[0] + dy[1]) + (dy[2] + dy[3])));
      transform2d<2, 4>(dy, freq, [](const V(&i)[2], V(&o)[4]) { outputTransformTransposed(i, o); });
      storeFrequencies(gradM, t, out, block, freq);
    }
  }
}

/// Back to pixels, B dV B^T, added where tiles overlap; outside the image it is dropped.
template <typename V>
ENSEMBLELAB_ALWAYS_INLINE void addInputGradients(int64_t firstTile, int64_t tiles, const float* gradV,
                                                 float* gradInput, const WinogradShape& shape) {
  const int64_t in = shape.inChannels;
  for (int64_t t = 0; t < tiles; ++t) {
    const TilePlace place = placeOf(firstTile + t, shape);
    for (int64_t block = 0; block < in; block += kLanes<V>) {
      V freq[16], d[16];
      loadFrequencies(gradV, t, in, block, freq);
      transform2d<4, 4>(freq, d, [](const V(&i)[4], V(&o)[4]) { inputTransformTransposed(i, o); });
      for (int i = 0; i < 4; ++i) {
        const int64_t row = place.row - 1 + i;
        if (row < 0 || row >= shape.height) continue;
        for (int j = 0; j < 4; ++j) {
          const int64_t column = place.column - 1 + j;
          if (column < 0 || column >= shape.width) continue;
          float* pixel = gradInput + pixelOffset(place.image, row, column, in, shape) + block;
          storeLanes<V>(pixel, loadLanes<V>(pixel) + d[i * 4 + j]);
        }
      }
    }
  }
}

/// Whether the transforms of `channels` run 16 floats at a time: AVX-512's width, where the
/// products use it (shape.wideRegisters) and it divides the channels; else 8. The transforms are
/// element-wise over channels, so the width changes no number; 16 floats halve their loads,
/// stores and address arithmetic (docs/BENCHMARKS.md).
inline bool wideTransforms(int64_t channels, const WinogradShape& shape) {
  return shape.wideRegisters && channels % kLanes<WideVector> == 0;
}

/// A block's working memory, kept per thread from call to call (no allocation per call, which
/// glibc's arenas would keep around per thread): each buffer is entirely written before it is
/// read.
float* threadScratch(int slot, int64_t floats) {
  thread_local std::vector<float> buffers[3];
  std::vector<float>& buffer = buffers[slot];
  if (static_cast<int64_t>(buffer.size()) < floats) buffer.resize(floats);
  return buffer.data();
}

/// Zeros for the padding around the images, kept per thread like the scratch above.
const float* threadZeros(int64_t floats) {
  thread_local std::vector<float> zeros;
  if (static_cast<int64_t>(zeros.size()) < floats) zeros.resize(floats, 0.f);
  return zeros.data();
}

/// transformInputs at the width wideTransforms picks for the input's channels.
ENSEMBLELAB_ALWAYS_INLINE void transformInputsAtTheirWidth(int64_t firstTile, int64_t tiles, const float* input,
                                                           const float* zeros, float* v, const WinogradShape& shape) {
  if (wideTransforms(shape.inChannels, shape)) {
    transformInputs<WideVector>(firstTile, tiles, input, zeros, v, shape);
  } else {
    transformInputs<Vec>(firstTile, tiles, input, zeros, v, shape);
  }
}

/// The forward of images [first, last) into `output` (ConvolutionOutput or ReluPoolOutput), a
/// block of tiles at a time: their inputs transformed, 16 products, their outputs transformed.
template <typename Output>
ENSEMBLELAB_ALWAYS_INLINE void forwardTiles(int64_t first, int64_t last, const float* input, const float* transformed,
                                            const float* bias, const Output& output, const WinogradShape& shape) {
  const int64_t in = shape.inChannels, out = shape.outChannels;
  const bool wide = shape.wideRegisters;
  const float* const zeros = threadZeros(in);
  float* const v = threadScratch(0, kFrequencies * kTilesPerBlock * in);
  float* const m = threadScratch(1, kFrequencies * kTilesPerBlock * out);
  const int64_t lastTile = last * shape.tilesPerImage();
  for (int64_t firstTile = first * shape.tilesPerImage(); firstTile < lastTile; firstTile += kTilesPerBlock) {
    const int64_t tiles = std::min(kTilesPerBlock, lastTile - firstTile);
    transformInputsAtTheirWidth(firstTile, tiles, input, zeros, v, shape);
    for (int f = 0; f < kFrequencies; ++f) {
      product(tiles, in, out, v + f * kTilesPerBlock * in, in, 1, transformed + f * in * out, out,
              m + f * kTilesPerBlock * out, out, false, wide);
    }
    if (wideTransforms(out, shape)) {
      transformOutputs<WideVector>(firstTile, tiles, m, bias, output, shape);
    } else {
      transformOutputs<Vec>(firstTile, tiles, m, bias, output, shape);
    }
  }
}

/// The backward of images [first, last) from the output's `gradient` (ConvolutionGradient or
/// ReluPoolGradient): what backwardImages writes. `zeros`: threadZeros(max(in, out)).
template <typename Gradient>
ENSEMBLELAB_ALWAYS_INLINE void backwardTiles(int64_t first, int64_t last, const float* input, const float* transposed,
                                             const Gradient& gradient, const float* zeros, float* gradInput,
                                             float* gradTransformed, float* gradBias, const WinogradShape& shape) {
  const int64_t in = shape.inChannels, out = shape.outChannels;
  const int64_t imageSize = shape.height * shape.width;
  const bool wide = shape.wideRegisters;
  std::fill(gradInput + first * imageSize * in, gradInput + last * imageSize * in, 0.f);
  std::fill(gradTransformed, gradTransformed + kFrequencies * in * out, 0.f);
  std::fill(gradBias, gradBias + out, 0.f);
  float* const v = threadScratch(0, kFrequencies * kTilesPerBlock * in);
  float* const gradV = threadScratch(1, kFrequencies * kTilesPerBlock * in);
  float* const gradM = threadScratch(2, kFrequencies * kTilesPerBlock * out);
  const int64_t lastTile = last * shape.tilesPerImage();
  for (int64_t firstTile = first * shape.tilesPerImage(); firstTile < lastTile; firstTile += kTilesPerBlock) {
    const int64_t tiles = std::min(kTilesPerBlock, lastTile - firstTile);
    transformInputsAtTheirWidth(firstTile, tiles, input, zeros, v, shape);
    if (wideTransforms(out, shape)) {
      transformOutputGradients<WideVector>(firstTile, tiles, gradient, gradM, gradBias, shape);
    } else {
      transformOutputGradients<Vec>(firstTile, tiles, gradient, gradM, gradBias, shape);
    }
    for (int f = 0; f < kFrequencies; ++f) {
      const float* vf = v + f * kTilesPerBlock * in;
      const float* gradMf = gradM + f * kTilesPerBlock * out;
      // The transformed weights' gradient: V^T dM, summed over the tiles of every block.
      product(in, tiles, out, vf, 1, in, gradMf, out, gradTransformed + f * in * out, out, true, wide);
      // The transformed input's gradient: dM U^T.
      product(tiles, out, in, gradMf, out, 1, transposed + f * out * in, in, gradV + f * kTilesPerBlock * in, in,
              false, wide);
    }
    if (wideTransforms(in, shape)) {
      addInputGradients<WideVector>(firstTile, tiles, gradV, gradInput, shape);
    } else {
      addInputGradients<Vec>(firstTile, tiles, gradV, gradInput, shape);
    }
  }
}

// AVX-512, AVX2 with FMA, and the x86-64 baseline, chosen at load time (as for the pool's
// loops, ReluAvgPoolLoops.cpp).
#define ENSEMBLELAB_WINOGRAD_CLONES ENSEMBLELAB_CPU_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")

}  // namespace

void transformWeights(const float* weight, float* transformed, float* transposed,
                      const WinogradShape& shape) {
  const int64_t in = shape.inChannels, out = shape.outChannels;
  const auto filterTransform = [](const float(&g)[3], float(&u)[4]) {  // G g
    u[0] = g[0];
    u[1] = 0.5f * (g[0] + g[1] + g[2]);
    u[2] = 0.5f * (g[0] - g[1] + g[2]);
    u[3] = g[2];
  };
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t i = 0; i < in; ++i) {
      float g[9], u[16];
      std::memcpy(g, weight + (o * in + i) * 9, sizeof g);
      // G g G^T: the 3-to-4 transform down the columns, then along the rows.
      float columns[4 * 3];
      for (int column = 0; column < 3; ++column) {
        const float line[3] = {g[column], g[3 + column], g[6 + column]};
        float result[4];
        filterTransform(line, result);
        for (int p = 0; p < 4; ++p) columns[p * 3 + column] = result[p];
      }
      for (int p = 0; p < 4; ++p) {
        const float line[3] = {columns[p * 3], columns[p * 3 + 1], columns[p * 3 + 2]};
        float result[4];
        filterTransform(line, result);
        for (int q = 0; q < 4; ++q) u[p * 4 + q] = result[q];
      }
      for (int f = 0; f < kFrequencies; ++f) {
        transformed[(f * in + i) * out + o] = u[f];
        transposed[(f * out + o) * in + i] = u[f];
      }
    }
  }
}

void weightGradient(const float* gradTransformed, float* gradWeight, const WinogradShape& shape) {
  const int64_t in = shape.inChannels, out = shape.outChannels;
  const auto filterTransformTransposed = [](const float(&du)[4], float(&dg)[3]) {  // G^T du
    dg[0] = du[0] + 0.5f * (du[1] + du[2]);
    dg[1] = 0.5f * (du[1] - du[2]);
    dg[2] = 0.5f * (du[1] + du[2]) + du[3];
  };
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t i = 0; i < in; ++i) {
      float du[16];
      for (int f = 0; f < kFrequencies; ++f) du[f] = gradTransformed[(f * in + i) * out + o];
      float columns[3 * 4];
      for (int column = 0; column < 4; ++column) {
        const float line[4] = {du[column], du[4 + column], du[8 + column], du[12 + column]};
        float result[3];
        filterTransformTransposed(line, result);
        for (int p = 0; p < 3; ++p) columns[p * 4 + column] = result[p];
      }
      float* g = gradWeight + (o * in + i) * 9;
      for (int p = 0; p < 3; ++p) {
        const float line[4] = {columns[p * 4], columns[p * 4 + 1], columns[p * 4 + 2], columns[p * 4 + 3]};
        float result[3];
        filterTransformTransposed(line, result);
        for (int q = 0; q < 3; ++q) g[p * 3 + q] = result[q];
      }
    }
  }
}

ENSEMBLELAB_WINOGRAD_CLONES void forwardImages(int64_t first, int64_t last, const float* input,
                                               const float* transformed, const float* bias,
                                               float* output, const WinogradShape& shape) {
  forwardTiles(first, last, input, transformed, bias, ConvolutionOutput{output}, shape);
}

ENSEMBLELAB_WINOGRAD_CLONES void forwardImagesReluPool(int64_t first, int64_t last, const float* input,
                                                       const float* transformed, const float* bias,
                                                       float* pooledOutput, uint8_t* reluMask,
                                                       const WinogradShape& shape) {
  forwardTiles(first, last, input, transformed, bias, ReluPoolOutput{pooledOutput, reluMask}, shape);
}

ENSEMBLELAB_WINOGRAD_CLONES void backwardImages(int64_t first, int64_t last, const float* input,
                                                const float* transposed, const float* gradOutput,
                                                float* gradInput, float* gradTransformed,
                                                float* gradBias, const WinogradShape& shape) {
  const float* const zeros = threadZeros(std::max(shape.inChannels, shape.outChannels));
  backwardTiles(first, last, input, transposed, ConvolutionGradient{gradOutput, zeros}, zeros, gradInput,
                gradTransformed, gradBias, shape);
}

ENSEMBLELAB_WINOGRAD_CLONES void backwardImagesReluPool(int64_t first, int64_t last, const float* input,
                                                        const float* transposed, const float* gradPooled,
                                                        const uint8_t* reluMask, float* gradInput,
                                                        float* gradTransformed, float* gradBias,
                                                        const WinogradShape& shape) {
  const float* const zeros = threadZeros(std::max(shape.inChannels, shape.outChannels));
  backwardTiles(first, last, input, transposed, ReluPoolGradient{gradPooled, reluMask, zeros}, zeros,
                gradInput, gradTransformed, gradBias, shape);
}

}  // namespace ensemble::winograd_loops
