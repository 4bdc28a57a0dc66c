# SPDX-License-Identifier: GPL-3.0-or-later
"""MNIST-format datasets (IDX files, raw or .gz) as EnsembleLab feeds them to its models.

A dataset folder is found as EnsembleLab finds it (core/data/DatasetSource.cpp): MNIST's four
names, each raw or .gz, also spelt with a dot before "idx" (train-images.idx3-ubyte, as some
MNIST mirrors ship it) or behind a prefix the four share (EMNIST's
emnist-letters-train-images-idx3-ubyte.gz). So a folder a run trained on loads here too. Its
files are read and checked as the engine reads and checks them (core/data/IdxFile.cpp,
core/data/Dataset.cpp), and what the engine refuses is refused here in its words.
"""
import collections
import os
import re
import struct
import zlib

import torch

FASHION_MNIST = "/usr/share/datasets/fashion-mnist"
_ROLES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
_TRAIN_IMAGES, _TRAIN_LABELS, _TEST_IMAGES, _TEST_LABELS = range(len(_ROLES))
_IDX_NAME = re.compile(r"(.*)(train-images|train-labels|t10k-images|t10k-labels)([-.])(idx[13])-ubyte(\.gz)?")

_UNSIGNED_BYTE = 0x08  # the only IDX element type MNIST-format datasets use
_ELEMENT_TYPES = {0x09: "signed byte", 0x0B: "short", 0x0C: "int", 0x0D: "float", 0x0E: "double"}
_MAX_DIMS = 4
_LONGEST_HEADER = 4 + 4 * _MAX_DIMS
# The engine's largest payload: far above any dataset that fits in memory, and a guard
# against a header (or a gzip bomb) that claims more.
_MAX_PAYLOAD = 32 << 30
_GZIP_MAGIC = b"\x1f\x8b"
_GZIP_ONLY = 16 + zlib.MAX_WBITS  # zlib's window bits for a gzip header and trailer, as inflateInit2 gets them
_INFLATE_BUFFER = 1 << 16  # the engine inflates into 64 KiB and checks the size after each buffer


# --- IDX files, as core/data/IdxFile.cpp reads them ------------------------------------------

def _idx_dims(head, size, path):
    """The dimensions an IDX file's header declares, checked as the engine's parseIdx checks
    them, in its words. `head` is the file's first bytes (all of them, or at least the longest
    header); `size` is its whole length, or None where it is not known (then the data's
    length goes unchecked)."""
    if len(head) < 4:
        raise ValueError(f"{path} is not an IDX file: it holds {len(head)} bytes, fewer than the 4-byte magic "
                         "number")
    if head[0] != 0 or head[1] != 0:
        raise ValueError(f"{path} has a wrong IDX magic number 0x{bytes(head[:4]).hex().upper()} "
                         "(expected 0x000008NN); is it an MNIST-format file?")
    if head[2] != _UNSIGNED_BYTE:
        raise ValueError(f"{path} holds IDX elements of type {_ELEMENT_TYPES.get(head[2], 'unknown')}; EnsembleLab "
                         "reads unsigned-byte (0x08) IDX files")
    ndims = head[3]
    if not 1 <= ndims <= _MAX_DIMS:
        raise ValueError(f"{path} declares {ndims} dimensions; IDX image and label files have 1 to 4")
    header = 4 + 4 * ndims
    if len(head) < header:
        raise ValueError(f"{path} is truncated inside its header ({len(head)} of {header} bytes)")
    dims = struct.unpack(">" + "I" * ndims, bytes(head[4:header]))
    if size is not None:
        _check_payload_length(dims, size - header, path)
    return dims


def _check_payload_length(dims, present, path):
    """The bytes after the header are exactly the ones `dims` declare, as the engine requires."""
    declared = 1
    for size in dims:
        declared *= size
    declared = min(declared, _MAX_PAYLOAD + 1)  # the engine stops counting there
    # The dimensions too, either way: a wrong count of them in the magic number reads as a size.
    declared_text = (f"{len(dims)} dimension{'s' if len(dims) > 1 else ''}, {' x '.join(map(str, dims))}, so "
                     f"{f'more than {_MAX_PAYLOAD}' if declared > _MAX_PAYLOAD else declared} bytes of data")
    if present < declared:
        raise ValueError(f"{path} is truncated: its header declares {declared_text}, but it holds {present}; "
                         "download or copy it again")
    if present > declared:
        raise ValueError(f"{path} has {present - declared} bytes after the data its header declares "
                         f"({declared_text}); the file is corrupt, or its magic number declares too few dimensions "
                         "(an image file has 3: count, rows, columns; a label file 1)")


def _file_bytes(path, count=-1):
    """The first `count` bytes of a file (all of them by default), or the engine's refusal."""
    try:
        file = open(path, "rb")
    except OSError as error:
        raise ValueError(f"cannot open {path}: {error.strerror or error}; check the dataset folder and its file "
                         "names") from None
    with file:
        try:
            return file.read(count)
        except OSError:
            raise ValueError(f"cannot read {path}: I/O error") from None


def _inflated_buffers(compressed, path):
    """What each of the engine's inflate() calls gives from `compressed` (IdxFile.cpp's
    inflateGzip): up to 64 KiB a call, member after member as long as the bytes after one start
    another gzip member (cat a.gz b.gz, pigz, bgzip); other bytes after a member are ignored, as
    zlib's gzread ignores trailing garbage. Data that is corrupt, or ends inside a member,
    raises the engine's refusal."""
    data = memoryview(compressed)
    start = 0  # where the current member begins in `compressed`
    while True:
        member = zlib.decompressobj(_GZIP_ONLY)
        # The input goes to zlib in pieces: Python copies what a call leaves over, and copying
        # the rest of the file at every call would take quadratic time.
        fed = start  # the bytes of `compressed` handed to zlib so far
        while not member.eof:
            output, stuck = bytearray(), False
            while len(output) < _INFLATE_BUFFER and not member.eof and not stuck:
                piece = member.unconsumed_tail
                if not piece:
                    piece = data[fed:fed + _INFLATE_BUFFER]
                    fed += len(piece)
                try:
                    produced = member.decompress(piece, _INFLATE_BUFFER - len(output))
                except zlib.error as error:  # "Error -3 while decompressing data: invalid block type"
                    reason = str(error).partition(": ")[2] or "corrupt gzip data"
                    raise ValueError(f"{path} cannot be decompressed ({reason}); the file is truncated or corrupt, "
                                     "copy it again") from None
                stuck = not piece and not produced  # zlib's Z_BUF_ERROR: no input left, nothing more to give
                output += produced
            if output:
                yield output
            if stuck:
                raise ValueError(f"{path} cannot be decompressed (the compressed data ends early); the file is "
                                 "truncated or corrupt, copy it again")
        start = fed - len(member.unused_data)
        if data[start:start + 2] != _GZIP_MAGIC:
            return


def _gunzip(compressed, max_output, path, prefix_only=False):
    """The decompressed bytes of `compressed`; more than `max_output` of them is refused as
    the engine refuses it, or, with prefix_only, cut there (to read a header)."""
    output = bytearray()
    for produced in _inflated_buffers(compressed, path):
        if len(output) + len(produced) > max_output:
            if prefix_only:
                return output + produced[:max_output - len(output)]
            raise ValueError(f"{path} decompresses to more than {max_output} bytes, more than its IDX header "
                             "declares; the file is corrupt")
        output += produced
    return output


def _decompressed_limit(head):
    """How far the engine lets a .gz decompress, from its first bytes: what an IDX header there
    declares plus one byte (so data past it is reported, not dropped), or the payload guard."""
    limit = _MAX_PAYLOAD + 64
    if len(head) >= 4 and head[0] == 0 and head[1] == 0 and 1 <= head[3] <= _MAX_DIMS and len(head) >= 4 + 4 * head[3]:
        header = 4 + 4 * head[3]
        payload = 1
        for size in struct.unpack(">" + "I" * head[3], bytes(head[4:header])):
            if payload > _MAX_PAYLOAD:
                break
            payload = _MAX_PAYLOAD + 1 if size and payload > _MAX_PAYLOAD // size else payload * size  # as the engine saturates
        limit = min(limit, header + payload + 1)
    return limit


def _read_idx_file(path):
    """(dims, data bytes) of an IDX file of unsigned bytes, raw or gzip (told by its content,
    not its name, as the engine tells it), checked as the engine checks it."""
    data = _file_bytes(path)
    if data[:2] == _GZIP_MAGIC:
        # The header first, to learn how much data to allow.
        data = _gunzip(data, _decompressed_limit(_gunzip(data, _LONGEST_HEADER, path, prefix_only=True)), path)
    dims = _idx_dims(data, len(data), path)
    return dims, data[4 + 4 * len(dims):]


def _read_idx_header(path):
    """The dimensions of an IDX file, checked as _read_idx_file checks them but without
    decompressing a .gz's data: its header, and all but a .gz's data's length and content."""
    head = _file_bytes(path, _LONGEST_HEADER)
    if head[:2] != _GZIP_MAGIC:
        return _idx_dims(head, os.path.getsize(path), path)
    return _idx_dims(_gunzip(_file_bytes(path), _LONGEST_HEADER, path, prefix_only=True), None, path)


def _uint8_tensor(data, dims):
    # torch.frombuffer refuses an empty buffer
    if not data:
        return torch.empty(dims, dtype=torch.uint8)
    return torch.frombuffer(bytearray(data), dtype=torch.uint8).reshape(dims)


def read_idx(path):
    """An IDX file of unsigned bytes (raw or gzip, any number of gzip members) as a uint8
    tensor of its declared shape; a file that is not one, or is cut short, raises ValueError
    in the engine's words."""
    dims, data = _read_idx_file(path)
    return _uint8_tensor(data, dims)


# --- A split's two files, as core/data/Dataset.cpp checks them --------------------------------

# A split's files and what was read of them: images_data is None where only their header was.
_Split = collections.namedtuple("_Split", "images_path labels_path image_dims images_data labels")


def _read_split(images_path, labels_path, with_pixels):
    """A split's labels, and its images' dimensions and (with_pixels) data, checked as the
    engine's loadSplit and datasetFromIdx check them, in their order."""
    # The label file first, as the engine's loadSplit reads it: where both files are bad,
    # that decides the message.
    label_dims, labels = _read_idx_file(labels_path)
    if with_pixels:
        image_dims, images_data = _read_idx_file(images_path)
    else:
        image_dims, images_data = _read_idx_header(images_path), None
    image_shape = _check_split(image_dims, label_dims, images_path, labels_path)
    return _Split(images_path, labels_path, image_shape, images_data, labels)


def _image_file_shape(dims):
    """(count, rows, columns) of an image file of these dimensions, or None, as the engine's
    imageFileShape: its three, or four with one channel last or first (the same bytes)."""
    if len(dims) == 3:
        return tuple(dims)
    if len(dims) == 4 and dims[3] == 1:
        return tuple(dims[:3])
    if len(dims) == 4 and dims[1] == 1:
        return (dims[0], dims[2], dims[3])
    return None


def _not_image_dimensions(dims):
    """Why images of these dimensions cannot be trained on, and what to do, in the words of
    the engine's notImageDimensions (core/data/IdxFile.cpp)."""
    shape_rule = "an image file has 3 (count, rows, columns)"
    shape = "x".join(map(str, dims))
    if len(dims) == 1:  # a label file's shape: the two files swapped, or a label file copied twice
        return f" has 1 dimension, as a label file has; {shape_rule}: is it a label file?"
    if len(dims) == 2:
        return (f" has 2 dimensions ({shape}), images flattened into rows of pixels; {shape_rule}: write it with each "
                f"image's rows and columns ({dims[0]}xROWSxCOLUMNS)")
    if len(dims) == 4 and (dims[3] <= 4 or dims[1] <= 4):
        last = dims[3] <= 4  # channels last (NumPy's HWC) or first (PyTorch's CHW): the short one
        channels = dims[3] if last else dims[1]
        layout = "(count, rows, columns, channels)" if last else "(count, channels, rows, columns)"
        wanted = f"{dims[0]}x{dims[1] if last else dims[2]}x{dims[2] if last else dims[3]}"
        return (f" has 4 dimensions ({shape}), {layout}: {channels} channels, colour images; {shape_rule} (or 4 with "
                f"one channel), one byte a pixel: convert the images to greyscale and write them as {wanted}")
    return f" has {len(dims)} dimensions ({shape}); {shape_rule}"


def _check_split(image_dims, label_dims, images_path, labels_path):
    """N images of H x W and their N labels, as the engine's datasetFromIdx requires; the
    images' (count, rows, columns)."""
    image_shape = _image_file_shape(image_dims)
    if image_shape is None:
        raise ValueError(f"{images_path}{_not_image_dimensions(image_dims)}")
    if len(label_dims) != 1:
        raise ValueError(f"{labels_path} has {len(label_dims)} dimensions; a label file has 1 (count)"
                         + (": is it an image file?" if len(label_dims) == 3 else ""))
    count, rows, columns = image_shape
    if count != label_dims[0]:
        raise ValueError(f"{images_path} holds {count} images but {labels_path} holds {label_dims[0]} labels; "
                         "the two files must come from the same split")
    if count == 0:
        raise ValueError(f"{images_path} holds no images")
    if rows == 0 or columns == 0:
        raise ValueError(f"{images_path} declares empty images ({rows}x{columns})")
    return image_shape


# --- Checks across the two splits, as core/data/DatasetSource.cpp makes them ------------------

def _check_one_image_size(folder, train, test):
    """Both splits hold images of one size: a model takes one."""
    if train.image_dims[1:] != test.image_dims[1:]:
        raise ValueError(f"dataset folder {folder} mixes image sizes: train images are "
                         f"{train.image_dims[1]}x{train.image_dims[2]}, test images "
                         f"{test.image_dims[1]}x{test.image_dims[2]}")


def _check_classes(folder, train, test):
    """The classes are the largest label + 1 over both splits (either may lack a class). Labels
    far apart with most numbers between them unused are a corrupt byte more likely than a
    dataset, and are refused, as the engine's agreeOnClasses refuses them."""
    widest = train if max(train.labels) >= max(test.labels) else test
    classes = max(widest.labels) + 1
    if classes < 2:
        raise ValueError(f"dataset folder {folder} has one class: every label in {train.labels_path} and "
                         f"{test.labels_path} is 0, and a classifier needs two or more")
    occurring = len(set(train.labels) | set(test.labels))
    if 2 * occurring < classes:
        raise ValueError(f"{widest.labels_path} has the label {classes - 1} (at index "
                         f"{widest.labels.index(classes - 1)}), so classes 0-{classes - 1}, but only {occurring} of "
                         f"those {classes} numbers occur as labels in the two splits; the file is corrupt, or the "
                         "dataset's classes need numbers 0 to N-1 with few gaps")


# --- Finding a folder's files, as core/data/DatasetSource.cpp finds them ----------------------

def _file_sets(folder):
    """{prefix: [path of each of _ROLES or None]}: the IDX files `folder` holds, by the prefix
    their names share. Where a role has several spellings, MNIST's raw one wins, then its .gz,
    then the dotted raw and .gz."""
    try:
        names = os.listdir(folder)
    except OSError:
        return {}  # the engine reads a folder it cannot list as an empty one
    ranked = {}
    for name in names:
        match = _IDX_NAME.fullmatch(name)
        path = os.path.join(folder, name)
        if not match or not os.path.isfile(path):
            continue
        role = f"{match.group(2)}-{match.group(4)}-ubyte"
        if role not in _ROLES:
            continue  # train-images-idx1-ubyte names no file of MNIST's
        rank = (2 if match.group(3) == "." else 0) + (1 if match.group(5) else 0)
        slots = ranked.setdefault(match.group(1), [None] * len(_ROLES))
        index = _ROLES.index(role)
        if slots[index] is None or rank < slots[index][0]:
            slots[index] = (rank, path)
    return {prefix: [slot[1] if slot else None for slot in slots] for prefix, slots in ranked.items()}


def _subfolders(folder):
    """`folder`'s subfolders, by name."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(os.path.join(folder, name) for name in names if os.path.isdir(os.path.join(folder, name)))


def _holds_a_whole_dataset(folder):
    return any(None not in files for files in _file_sets(folder).values())


def _subfolder_with_a_dataset(folder):
    """The first subfolder (by name) of `folder` that holds a whole dataset, one level down,
    else two (torchvision's root: ROOT/MNIST/raw), as the engine's subfolderWithADataset; or None."""
    children = _subfolders(folder)
    found = next((child for child in children if _holds_a_whole_dataset(child)), None)
    if found:
        return found
    grandchildren = (grandchild for child in children for grandchild in _subfolders(child))
    return next((grandchild for grandchild in grandchildren if _holds_a_whole_dataset(grandchild)), None)


def _refuse_a_different_gzip_beside(raw):
    """As the engine: where a raw file has its .gz beside it (gunzip -k leaves both), the raw
    one is read, unless their headers say they hold different data; which one to train on is
    then the user's to say."""
    gzip_path = raw + ".gz"
    if raw.endswith(".gz") or not os.path.isfile(gzip_path):
        return
    dims = []
    for path in (raw, gzip_path):
        head = _file_bytes(path, _LONGEST_HEADER)
        try:
            if head[:2] == _GZIP_MAGIC:
                head = _gunzip(_file_bytes(path), _LONGEST_HEADER, path, prefix_only=True)
            dims.append(_idx_dims(head, None, path))
        except ValueError:
            return  # one that is no IDX file is not read: the raw one is, and says what it is
    if dims[0] != dims[1]:
        raise ValueError(f"dataset folder {os.path.dirname(raw)} holds {os.path.basename(raw)} "
                         f"({' x '.join(map(str, dims[0]))}) and {os.path.basename(gzip_path)} "
                         f"({' x '.join(map(str, dims[1]))}): two different files for one; remove or move the one not "
                         "to train on")


def _split_files(folder):
    """The four files of the dataset in `folder`; raises FileNotFoundError or ValueError
    saying what is missing, or which datasets a folder of several holds."""
    # The usual folder: MNIST's names, four lookups, no listing.
    plain = [next((os.path.join(folder, name) for name in (role, role + ".gz")
                   if os.path.isfile(os.path.join(folder, name))), None) for role in _ROLES]
    for path in plain:
        if path:
            _refuse_a_different_gzip_beside(path)
    if None not in plain:
        return plain
    sets = _file_sets(folder)
    complete = sorted(prefix for prefix, files in sets.items() if None not in files)
    if "" in complete:  # an unprefixed set wins over prefixed copies beside it, as MNIST's own does
        return sets[""]
    if len(complete) == 1:
        return sets[complete[0]]
    if len(complete) > 1:
        names = ", ".join(prefix + _ROLES[_TRAIN_IMAGES] for prefix in complete)
        raise ValueError(f"dataset folder {folder} holds {len(complete)} datasets ({names}, each with its three other "
                         "files); a dataset folder holds one: copy or link the four files of the one to train on into "
                         "a folder of its own")
    # No whole set: name the first file missing from the fullest one (the first by prefix on a
    # tie, so the unprefixed one).
    prefix, files = "", [None] * len(_ROLES)
    for candidate in sorted(sets):
        if _found(sets[candidate]) > _found(files):
            prefix, files = candidate, sets[candidate]
    if not _found(files):
        inside = _subfolder_with_a_dataset(folder)
        if inside:
            raise FileNotFoundError(f"dataset folder {folder} holds no MNIST-format files, but its subfolder {inside} "
                                    "does: name that subfolder in load_split's folder")
    missing = prefix + _ROLES[files.index(None)]
    raise FileNotFoundError(f"dataset folder {folder} has no {missing} (or {missing}.gz); an MNIST-format folder holds "
                            f"{', '.join(_ROLES[:-1])} and {_ROLES[-1]}, each raw or .gz (also spelt "
                            "train-images.idx3-ubyte, or behind a prefix the four share, as EMNIST's "
                            "emnist-letters-train-images-idx3-ubyte.gz)")


def _found(files):
    return sum(path is not None for path in files)


def _dataset_folder(spec):
    """The folder a dataset setting names, as the engine's datasetFolderOf finds it."""
    folder = FASHION_MNIST if spec == "fashion-mnist" else os.path.expanduser(spec)
    if os.path.isdir(folder):
        return folder
    if spec == "fashion-mnist":
        raise FileNotFoundError(f"Fashion-MNIST is not installed at {folder}; install it with `apt install "
                                "dataset-fashion-mnist`, or pass a folder of MNIST-format files")
    raise FileNotFoundError(f"dataset folder {folder} " + ("is a file, not a folder" if os.path.exists(folder)
                                                           else "does not exist") +
                            "; pass 'fashion-mnist' or a folder holding the four MNIST-format files")


def load_split(folder="fashion-mnist", split="test", limit=0):
    """(images, labels) of a split: images N x 1 x H x W floats in [0, 1] (pixels / 255),
    labels int64; the first `limit` samples when limit > 0 (config.json's train_limit and
    test_limit take the first samples too). `folder` may be what a run's config.json records
    as its "dataset": a folder, or "fashion-mnist".

    The folder is refused where the engine refuses to train on it, in its words: the split's
    files are read whole, and the other split's labels and image header too, for the checks
    across the two (one image size, the classes). The other split's pixels are not read, so a
    fault only they have (a .gz cut short) is the engine's refusal but not this split's."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    if folder == "synthetic":
        raise ValueError("the 'synthetic' dataset is generated inside EnsembleLab and has no files; "
                         "train on an MNIST-format folder to read its images here")
    folder = _dataset_folder(folder)
    files = _split_files(folder)
    # The engine's order: the training split, then the test split, then the checks across them.
    train = _read_split(files[_TRAIN_IMAGES], files[_TRAIN_LABELS], with_pixels=split == "train")
    test = _read_split(files[_TEST_IMAGES], files[_TEST_LABELS], with_pixels=split == "test")
    _check_one_image_size(folder, train, test)
    _check_classes(folder, train, test)
    chosen = train if split == "train" else test
    count, rows, columns = chosen.image_dims
    images = _uint8_tensor(chosen.images_data, (count, 1, rows, columns))
    labels = _uint8_tensor(chosen.labels, (count,)).long()
    if limit > 0:
        images, labels = images[:limit], labels[:limit]
    return images.float().div(255.0), labels
