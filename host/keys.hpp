// The host side of describe() (include/quatstep/settings_keys.hpp): a struct's keys as a runtime
// table (KeyInfo: name, kind, size, doc, range, default, where it lives), read back from a list of
// values, and printed. The scenario parser reads every table of a scenario file against such key
// tables — the same tables that `quatstep docs scenario` prints — so a key is either declared next
// to the member it sets or rejected.
#pragma once

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "quatstep/settings_keys.hpp"

namespace quatstep {

struct KeyInfo {
  /// number: one or `size` finite numbers; numbers: as many as the context says (or one for all)
  enum class Kind { number, numbers, integer, boolean, choice, text, text_list };
  std::string name;
  Kind kind = Kind::number;
  int size = 1;  ///< components: 3 for a vector key, 1 for a scalar
  std::string doc;
  keys::Range range = keys::finite;     ///< number and integer kinds
  std::vector<std::string> choices;     ///< choice kind: the names, in the enum's table order
  bool required = false;                ///< no default: the scenario must give it
  std::vector<double> value;            ///< default (numbers; booleans 0/1; choice: index in `choices`)
  std::string text;                     ///< default of a text key
  std::vector<std::string> texts;       ///< default of a text-list key
  int offset = -1;                      ///< parameters: index of the first component in the flat array
};

/// Collects the KeyInfo of every key a describe() visits, defaults from the instance visited. With
/// `base`, the offset of each member from it in doubles (structs of plain doubles: the models'
/// parameters).
class KeyCollector {
 public:
  explicit KeyCollector(const void* base = nullptr) : base_(static_cast<const char*>(base)) {}

  template <class T>
  void operator()(const std::string& name, T& member, const char* doc, const keys::Range& range = keys::finite) {
    add(name, member, doc, range, false);
  }
  template <class T>
  void required(const std::string& name, T& member, const char* doc, const keys::Range& range = keys::finite) {
    add(name, member, doc, range, true);
  }
  template <class E>
  void required(const std::string& name, E& member, const char* doc, keys::Choices<E> choices) {
    (*this)(name, member, doc, choices);
    keys_.back().required = true;
  }
  template <class E>
  void operator()(const std::string& name, E& member, const char* doc, keys::Choices<E> choices) {
    KeyInfo k{name, KeyInfo::Kind::choice, 1, doc};
    for (const auto& c : choices) {
      if (c.value == member) k.value = {double(k.choices.size())};
      k.choices.push_back(c.name);
    }
    keys_.push_back(std::move(k));
  }

  const std::vector<KeyInfo>& keys() const { return keys_; }
  std::vector<KeyInfo> take() { return std::move(keys_); }

 private:
  template <class T>
  void add(const std::string& name, T& member, const char* doc, const keys::Range& range, bool required) {
    KeyInfo k{name, KeyInfo::Kind::number, 1, doc, range};
    k.required = required;
    if constexpr (std::is_same_v<T, bool>) {
      k.kind = KeyInfo::Kind::boolean;
      k.value = {member ? 1.0 : 0.0};
    } else if constexpr (std::is_integral_v<T>) {
      k.kind = KeyInfo::Kind::integer;
      k.value = {double(member)};
    } else if constexpr (std::is_floating_point_v<T>) {
      k.value = {double(member)};
      k.offset = offset_of(&member);
    } else if constexpr (std::is_same_v<T, std::string>) {
      k.kind = KeyInfo::Kind::text;
      k.text = member;
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      k.kind = KeyInfo::Kind::text_list;
      k.texts = member;
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      k.kind = KeyInfo::Kind::numbers;
      k.size = 0;
      k.value = member;
    } else {  // std::array<double, N>
      k.size = int(member.size());
      k.value.assign(member.begin(), member.end());
      k.offset = offset_of(member.data());
    }
    keys_.push_back(std::move(k));
  }
  template <class T>
  int offset_of(const T* p) const {
    if (!base_) return -1;
    return int((reinterpret_cast<const char*>(p) - base_) / sizeof(double));
  }

  const char* base_;
  std::vector<KeyInfo> keys_;
};

/// Whether T is a fixed-size array of numbers (std::array, an Eigen vector): it has size() and [].
template <class T, class = void>
struct is_indexed : std::false_type {};
template <class T>
struct is_indexed<T, std::void_t<decltype(std::declval<T&>().size()), decltype(std::declval<T&>()[0])>>
    : std::true_type {};

/// Assigns values into the members a describe() visits, in its order: numbers, booleans and integers
/// from `numbers[k]` (one vector per key, the choice index for enums), texts from `texts[k]`.
class KeyAssigner {
 public:
  KeyAssigner(const std::vector<std::vector<double>>& numbers, const std::vector<std::vector<std::string>>& texts = {})
      : numbers_(numbers), texts_(texts) {}

  template <class T>
  void operator()(const std::string&, T& member, const char*, const keys::Range& = keys::finite) {
    assign(member);
  }
  template <class T>
  void required(const std::string&, T& member, const char*, const keys::Range& = keys::finite) {
    assign(member);
  }
  template <class E>
  void operator()(const std::string&, E& member, const char*, keys::Choices<E> choices) {
    member = choices.data[int(numbers_.at(next_++).at(0))].value;
  }
  template <class E>
  void required(const std::string& name, E& member, const char* doc, keys::Choices<E> choices) {
    (*this)(name, member, doc, choices);
  }

 private:
  template <class T>
  void assign(T& member) {
    const std::size_t k = next_++;
    if constexpr (std::is_same_v<T, bool>) {
      member = numbers_.at(k).at(0) != 0;
    } else if constexpr (std::is_arithmetic_v<T>) {
      member = T(numbers_.at(k).at(0));
    } else if constexpr (std::is_same_v<T, std::string>) {
      member = texts_.at(k).at(0);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      member = texts_.at(k);
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      member = numbers_.at(k);
    } else if constexpr (!is_indexed<T>::value) {  // a number-like class (e.g. bench/'s counting scalar)
      member = T(numbers_.at(k).at(0));
    } else {
      for (std::size_t c = 0; c < member.size(); ++c) member[c] = numbers_.at(k).at(c);
    }
  }

  const std::vector<std::vector<double>>& numbers_;
  const std::vector<std::vector<std::string>>& texts_;
  std::size_t next_ = 0;
};

/// The key table of a describe()d struct, from a default-constructed instance.
template <class T>
std::vector<KeyInfo> key_table() {
  T instance{};
  KeyCollector c(&instance);
  instance.describe(c);
  return c.take();
}

/// "alpha -0.2, inertia_shift true, …, Newton tolerance 1e-12": settings as run, `values` per key
/// of `keys` (the Newton keys but its tolerance left out).
std::string settings_summary(const std::vector<KeyInfo>& keys, const std::vector<std::vector<double>>& values);

/// The index of `name` in `keys`, or −1.
inline int find_key(const std::vector<KeyInfo>& keys, const std::string& name) {
  for (std::size_t k = 0; k < keys.size(); ++k)
    if (keys[k].name == name) return int(k);
  return -1;
}

}  // namespace quatstep
