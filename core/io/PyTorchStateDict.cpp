// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/PyTorchStateDict.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>

#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include "core/common/Error.h"
#include "core/common/FileKind.h"
#include "core/io/TensorArchiveCheck.h"

namespace ensemble {
namespace {

/// What a state_dict's pickle builds. Containers are shared: the memo and the stack may
/// hold the same dict, which SETITEMS fills in place.
struct Value;
using ValuePtr = std::shared_ptr<Value>;
struct Value {
  enum class Kind { None, Bool, Int, Float, Text, Tuple, List, Dict, Global, Tensor, Mark };
  Kind kind = Kind::None;
  int64_t integer = 0;
  double number = 0;
  std::string text;  ///< Text; Global: "module.name"
  std::vector<ValuePtr> items;
  std::vector<std::pair<ValuePtr, ValuePtr>> entries;
  torch::Tensor tensor;
};

ValuePtr make(Value::Kind kind) {
  auto value = std::make_shared<Value>();
  value->kind = kind;
  return value;
}

const char* kUsage = "--init-from takes what torch.save(model.state_dict(), FILE) writes";

class Unpickler {
 public:
  Unpickler(const std::string& pickle, caffe2::serialize::PyTorchStreamReader& archive, std::string origin)
      : m_pickle(pickle), m_archive(archive), m_origin(std::move(origin)) {}

  ValuePtr run() {
    for (;;) {
      const std::uint8_t opcode = byte();
      if (opcode == '.') return pop();
      step(opcode);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw CheckpointError(m_origin + ": " + what); }
  [[noreturn]] void damaged(const std::string& what) const {
    fail(what + "; the file is damaged or truncated (write it again with torch.save)");
  }

  const char* take(std::size_t n) {
    if (n > m_pickle.size() - m_at) damaged("data.pkl ends inside an opcode");
    const char* at = m_pickle.data() + m_at;
    m_at += n;
    return at;
  }
  std::uint8_t byte() { return std::uint8_t(*take(1)); }
  std::uint64_t little(std::size_t n) {
    const char* at = take(n);
    std::uint64_t value = 0;
    for (std::size_t i = n; i-- > 0;) value = (value << 8) | std::uint8_t(at[i]);
    return value;
  }
  std::string text(std::size_t n) { return std::string(take(n), n); }
  std::string line() {
    const std::size_t end = m_pickle.find('\n', m_at);
    if (end == std::string::npos) damaged("data.pkl ends inside a GLOBAL");
    std::string value = m_pickle.substr(m_at, end - m_at);
    m_at = end + 1;
    return value;
  }

  void push(ValuePtr value) { m_stack.push_back(std::move(value)); }
  ValuePtr pop() {
    if (m_stack.empty()) damaged("data.pkl pops an empty stack");
    ValuePtr value = std::move(m_stack.back());
    m_stack.pop_back();
    return value;
  }
  ValuePtr& top() {
    if (m_stack.empty()) damaged("data.pkl reads an empty stack");
    return m_stack.back();
  }
  /// The values pushed since the last MARK, which is removed.
  std::vector<ValuePtr> popToMark() {
    std::size_t mark = m_stack.size();
    while (mark > 0 && m_stack[mark - 1]->kind != Value::Kind::Mark) --mark;
    if (mark == 0) damaged("data.pkl has no MARK where one is needed");
    std::vector<ValuePtr> values(m_stack.begin() + std::ptrdiff_t(mark), m_stack.end());
    m_stack.resize(mark - 1);
    return values;
  }
  ValuePtr integer(int64_t value) {
    ValuePtr v = make(Value::Kind::Int);
    v->integer = value;
    return v;
  }
  ValuePtr tuple(std::vector<ValuePtr> items) {
    ValuePtr v = make(Value::Kind::Tuple);
    v->items = std::move(items);
    return v;
  }
  void memoize(std::uint64_t index) {
    // Each memo entry takes an opcode, so a real index is below the pickle's size.
    if (index > m_pickle.size()) damaged("data.pkl memoizes at index " + std::to_string(index));
    if (m_memo.size() <= index) m_memo.resize(index + 1);
    m_memo[index] = top();
  }
  ValuePtr recall(std::uint64_t index) {
    if (index >= m_memo.size() || !m_memo[index]) damaged("data.pkl recalls memo " + std::to_string(index) + ", never stored");
    return m_memo[index];
  }
  ValuePtr global(const std::string& module, const std::string& name) {
    ValuePtr v = make(Value::Kind::Global);
    v->text = module + "." + name;
    return v;
  }

  void step(std::uint8_t opcode) {
    using K = Value::Kind;
    switch (opcode) {
      case 0x80: byte(); break;                    // PROTO
      case 0x95: little(8); break;                 // FRAME: framing only
      case '(': push(make(K::Mark)); break;        // MARK
      case 'N': push(make(K::None)); break;        // NONE
      case 0x88: case 0x89: {                      // NEWTRUE, NEWFALSE
        ValuePtr v = make(K::Bool);
        v->integer = opcode == 0x88;
        push(v);
        break;
      }
      case 'J': push(integer(int32_t(std::uint32_t(little(4))))); break;  // BININT
      case 'K': push(integer(int64_t(little(1)))); break;                // BININT1
      case 'M': push(integer(int64_t(little(2)))); break;                // BININT2
      case 0x8a: {                                                       // LONG1
        const std::size_t n = byte();
        if (n > 8) fail("data.pkl holds an integer wider than 64 bits");
        std::uint64_t raw = n ? little(n) : 0;
        if (n && n < 8 && (raw >> (8 * n - 1)) & 1) raw |= ~std::uint64_t(0) << (8 * n);  // sign-extend
        push(integer(int64_t(raw)));
        break;
      }
      case 'G': {  // BINFLOAT, big-endian
        const char* at = take(8);
        std::uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | std::uint8_t(at[i]);
        ValuePtr v = make(K::Float);
        std::memcpy(&v->number, &bits, 8);
        push(v);
        break;
      }
      case 'X': case 0x8c: case 0x8d: case 'B': case 'C': case 0x8e: case 'T': case 'U': {
        // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8, BINBYTES, SHORT_BINBYTES, BINBYTES8,
        // BINSTRING, SHORT_BINSTRING
        const std::size_t width = (opcode == 0x8c || opcode == 'C' || opcode == 'U') ? 1
                                  : (opcode == 0x8d || opcode == 0x8e)              ? 8
                                                                                    : 4;
        const std::uint64_t n = little(width);
        if (n > m_pickle.size()) damaged("data.pkl holds a string longer than itself");
        ValuePtr v = make(K::Text);
        v->text = text(std::size_t(n));
        push(v);
        break;
      }
      case '}': push(make(K::Dict)); break;   // EMPTY_DICT
      case ']': push(make(K::List)); break;   // EMPTY_LIST
      case ')': push(tuple({})); break;       // EMPTY_TUPLE
      case 't': push(tuple(popToMark())); break;  // TUPLE
      case 0x85: case 0x86: case 0x87: {       // TUPLE1..3
        std::vector<ValuePtr> items(std::size_t(opcode - 0x84));
        for (std::size_t i = items.size(); i-- > 0;) items[i] = pop();
        push(tuple(std::move(items)));
        break;
      }
      case 'q': memoize(little(1)); break;    // BINPUT
      case 'r': memoize(little(4)); break;    // LONG_BINPUT
      case 0x94: memoize(m_memo.size()); break;  // MEMOIZE
      case 'h': push(recall(little(1))); break;  // BINGET
      case 'j': push(recall(little(4))); break;  // LONG_BINGET
      case '0': pop(); break;                     // POP
      case '1': popToMark(); break;               // POP_MARK
      case '2': push(top()); break;               // DUP
      case 'c': {                                 // GLOBAL
        const std::string module = line();
        push(global(module, line()));
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        const ValuePtr name = pop(), module = pop();
        if (module->kind != K::Text || name->kind != K::Text) damaged("data.pkl's STACK_GLOBAL names no class");
        push(global(module->text, name->text));
        break;
      }
      case 's': case 'u': {  // SETITEM, SETITEMS
        std::vector<ValuePtr> values;
        if (opcode == 's') {
          const ValuePtr value = pop();
          values = {pop(), value};
        } else {
          values = popToMark();
        }
        ValuePtr& dict = top();
        if (dict->kind != K::Dict || values.size() % 2) damaged("data.pkl sets items on something not a dict");
        for (std::size_t i = 0; i < values.size(); i += 2) dict->entries.emplace_back(values[i], values[i + 1]);
        break;
      }
      case 'a': case 'e': {  // APPEND, APPENDS
        std::vector<ValuePtr> values = opcode == 'a' ? std::vector<ValuePtr>{pop()} : popToMark();
        ValuePtr& list = top();
        if (list->kind != K::List) damaged("data.pkl appends to something not a list");
        list->items.insert(list->items.end(), values.begin(), values.end());
        break;
      }
      case 'R': {  // REDUCE: callable(*args)
        const ValuePtr args = pop(), callable = pop();
        if (args->kind != K::Tuple || callable->kind != K::Global) damaged("data.pkl calls something not a class");
        push(call(callable->text, args->items));
        break;
      }
      case 0x81: case 0x92: {  // NEWOBJ, NEWOBJ_EX: an instance of a class (a pickled module)
        if (opcode == 0x92) pop();
        pop();
        const ValuePtr cls = pop();
        fail("holds a pickled " + (cls->kind == K::Global ? cls->text : std::string("object")) +
             ", not a state_dict; " + kUsage);
      }
      case 'b': {  // BUILD: an OrderedDict's attributes (a state_dict's _metadata), not needed
        pop();
        if (top()->kind != K::Dict) fail("holds an object of a class with state; " + std::string(kUsage));
        break;
      }
      case 'Q': push(storage(pop())); break;  // BINPERSID: a storage record of the archive
      default: {
        std::ostringstream hex;
        hex << std::hex << int(opcode);
        fail("holds pickle opcode 0x" + hex.str() + ", which no state_dict uses; " + kUsage);
      }
    }
  }

  /// The calls a state_dict makes; anything else is refused by name (nothing is run).
  ValuePtr call(const std::string& callable, const std::vector<ValuePtr>& args) {
    if (callable == "collections.OrderedDict" && args.empty()) return make(Value::Kind::Dict);
    if (callable == "torch._utils._rebuild_tensor_v2" && args.size() >= 4) return rebuildTensor(args);
    if (callable == "torch._utils._rebuild_parameter" && !args.empty() && args[0]->kind == Value::Kind::Tensor) {
      return args[0];
    }
    fail("holds a pickled " + callable + ", which is not part of a state_dict; " + kUsage);
  }

  static c10::ScalarType dtypeOf(const std::string& storageType) {
    static const std::map<std::string, c10::ScalarType> types{
        {"torch.FloatStorage", torch::kFloat32},   {"torch.DoubleStorage", torch::kFloat64},
        {"torch.HalfStorage", torch::kFloat16},    {"torch.BFloat16Storage", torch::kBFloat16},
        {"torch.LongStorage", torch::kInt64},      {"torch.IntStorage", torch::kInt32},
        {"torch.ShortStorage", torch::kInt16},     {"torch.CharStorage", torch::kInt8},
        {"torch.ByteStorage", torch::kUInt8},      {"torch.BoolStorage", torch::kBool}};
    const auto found = types.find(storageType);
    return found == types.end() ? c10::ScalarType::Undefined : found->second;
  }

  /// ('storage', torch.<Type>Storage, key, location, numel): the record data/<key>.
  ValuePtr storage(const ValuePtr& id) {
    const auto& f = id->items;
    if (id->kind != Value::Kind::Tuple || f.size() < 5 || f[0]->kind != Value::Kind::Text || f[0]->text != "storage" ||
        f[1]->kind != Value::Kind::Global || f[2]->kind != Value::Kind::Text || f[4]->kind != Value::Kind::Int) {
      damaged("data.pkl refers to a storage it does not describe");
    }
    const c10::ScalarType dtype = dtypeOf(f[1]->text);
    if (dtype == c10::ScalarType::Undefined) fail("holds a " + f[1]->text + ", a storage type --init-from does not read");
    const auto cached = m_storages.find(f[2]->text);
    if (cached != m_storages.end()) return cached->second;
    const std::string record = "data/" + f[2]->text;
    if (!m_archive.hasRecord(record)) damaged("its storage " + record + " is missing");
    const int64_t numel = f[4]->integer;
    const std::size_t itemSize = c10::elementSize(dtype);
    auto [data, size] = m_archive.getRecord(record);
    if (numel < 0 || std::uint64_t(numel) != size / itemSize || size % itemSize) {
      damaged("storage " + record + " holds " + std::to_string(size) + " bytes for " + std::to_string(numel) +
              " elements of " + std::to_string(itemSize) + " bytes");
    }
    const std::size_t bytes = size;
    ValuePtr v = make(Value::Kind::Tensor);
    v->tensor = torch::empty({numel}, torch::TensorOptions().dtype(dtype));
    if (bytes) std::memcpy(v->tensor.data_ptr(), data.get(), bytes);
    m_storages.emplace(f[2]->text, v);
    return v;
  }

  std::vector<int64_t> integers(const ValuePtr& tuple) {
    if (tuple->kind != Value::Kind::Tuple) damaged("a tensor's size or stride is not a tuple");
    std::vector<int64_t> values;
    for (const ValuePtr& item : tuple->items) {
      if (item->kind != Value::Kind::Int || item->integer < 0) damaged("a tensor's size or stride is not a count");
      values.push_back(item->integer);
    }
    return values;
  }

  /// _rebuild_tensor_v2(storage, offset, size, stride, ...): a view into the storage,
  /// checked to lie inside it, copied out so each entry owns its memory.
  ValuePtr rebuildTensor(const std::vector<ValuePtr>& args) {
    if (args[0]->kind != Value::Kind::Tensor || args[1]->kind != Value::Kind::Int) damaged("a tensor has no storage");
    const torch::Tensor& storage = args[0]->tensor;
    const int64_t offset = args[1]->integer;
    const std::vector<int64_t> size = integers(args[2]), stride = integers(args[3]);
    if (size.size() != stride.size()) damaged("a tensor's size and stride differ in length");
    int64_t last = offset;
    bool empty = false;
    for (std::size_t d = 0; d < size.size(); ++d) {
      empty |= size[d] == 0;
      if (size[d] > 0) last += (size[d] - 1) * stride[d];
    }
    if (offset < 0 || (!empty && last >= storage.numel())) damaged("a tensor reaches past its storage");
    ValuePtr v = make(Value::Kind::Tensor);
    v->tensor = storage.as_strided(size, stride, offset).clone(at::MemoryFormat::Contiguous);
    return v;
  }

  const std::string& m_pickle;
  caffe2::serialize::PyTorchStreamReader& m_archive;
  std::string m_origin;
  std::size_t m_at = 0;
  std::vector<ValuePtr> m_stack, m_memo;
  std::map<std::string, ValuePtr> m_storages;
};

/// The file's bytes, once it can be a tensor file: a file (not a folder, a device such as
/// /dev/zero, which has no end, or a pipe, which may have no writer) whose first bytes are a
/// ZIP's or a legacy pickle's. Anything else is refused before it is read whole.
std::string readFile(const std::string& path) {
  if (const std::string kind = notAFileKind(path); !kind.empty()) {
    throw CheckpointError(path + " is " + kind + ", not a tensor file; name a file torch.save wrote");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError(path + ": cannot open it (" + std::strerror(errno) + ")");
  std::string start(4, '\0');
  in.read(start.data(), std::streamsize(start.size()));
  start.resize(std::size_t(in.gcount()));
  checkTensorFileStart(start, path);
  in.clear();
  in.seekg(0);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

TensorDict readPyTorchStateDict(const std::string& path) {
  const std::string bytes = readFile(path);
  // Before 1.6 torch.save wrote a bare pickle stream (protocol 2: it starts 0x80 0x02).
  if (bytes.size() >= 2 && std::uint8_t(bytes[0]) == 0x80) {
    throw CheckpointError(path + " is in PyTorch's legacy (pre-1.6) format; load it in Python and save it again "
                          "with torch.save(state_dict, FILE)");
  }
  checkTensorArchive(bytes, path);  // every size is checked before LibTorch's reader trusts it
  std::istringstream stream(bytes);
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> archive;
  std::string pickle;
  try {
    archive = std::make_unique<caffe2::serialize::PyTorchStreamReader>(&stream);
    if (archive->hasRecord("byteorder")) {
      auto [order, size] = archive->getRecord("byteorder");
      if (std::string(static_cast<const char*>(order.get()), size) != "little") {
        throw CheckpointError(path + " was saved on a big-endian machine; --init-from reads little-endian files");
      }
    }
    auto [data, size] = archive->getRecord("data.pkl");
    pickle.assign(static_cast<const char*>(data.get()), size);
  } catch (const c10::Error& e) {
    throw CheckpointError(path + " is not a file torch.save wrote (" + e.what_without_backtrace() + ")");
  }
  ValuePtr root;
  try {
    root = Unpickler(pickle, *archive, path).run();
  } catch (const c10::Error& e) {  // a storage record LibTorch's reader finds broken
    throw CheckpointError(path + " is damaged (" + e.what_without_backtrace() + "); write it again with torch.save");
  }
  if (root->kind != Value::Kind::Dict) {
    throw CheckpointError(path + " holds no dict of tensors; " + kUsage);
  }
  TensorDict dict;
  for (const auto& [key, value] : root->entries) {
    if (key->kind != Value::Kind::Text) throw CheckpointError(path + " holds a dict whose keys are not names; " + kUsage);
    if (value->kind != Value::Kind::Tensor) {
      throw CheckpointError(path + ": entry '" + key->text + "' is not a tensor, so this is not a state_dict; " +
                            kUsage);
    }
    dict.insert(key->text, value->tensor);
  }
  return dict;
}

}  // namespace ensemble
