// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An enum's names in files, flags and messages, written once as a table of {value, name}
// pairs: the name of a value, the value of a name, and the names as a list for messages
// ("single, ensemble or data-parallel"). Each enum's table sits beside its
// `fooName`/`parseFoo` pair, which only look it up. Torch-free.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ensemble {

template <typename Enum>
struct EnumName {
  Enum value;
  const char* name;
};

/// The name `table` gives `value` (the first entry's for a value it does not list).
template <typename Enum, std::size_t N>
std::string nameOf(const EnumName<Enum> (&table)[N], Enum value) {
  for (const EnumName<Enum>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return table[0].name;
}

/// The value `table` names `name`, if any.
template <typename Enum, std::size_t N>
std::optional<Enum> valueNamed(const EnumName<Enum> (&table)[N], const std::string& name) {
  for (const EnumName<Enum>& entry : table) {
    if (name == entry.name) return entry.value;
  }
  return std::nullopt;
}

/// The names of `table` in order, as a message lists choices: "a, b or c".
template <typename Enum, std::size_t N>
std::string choicesOf(const EnumName<Enum> (&table)[N]) {
  std::string list;
  for (std::size_t i = 0; i < N; ++i) list += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(table[i].name);
  return list;
}

/// The names of `table` in order.
template <typename Enum, std::size_t N>
std::vector<std::string> namesOf(const EnumName<Enum> (&table)[N]) {
  std::vector<std::string> names;
  for (const EnumName<Enum>& entry : table) names.push_back(entry.name);
  return names;
}

}  // namespace ensemble
