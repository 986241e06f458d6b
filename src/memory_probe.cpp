// The memory the system can still give a fit (R/core-resources.R's
// available_memory()), read in C++: a fit probes it every time, and R's
// connections and regular expressions made the probe a few milliseconds,
// several per cent of a small survival fit.
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace {

// Every line of a file; none when it cannot be read (as read_lines_quietly()).
std::vector<std::string> read_lines(const std::string& path, size_t max_lines = 0) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  if (!in) return lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (max_lines > 0 && lines.size() >= max_lines) break;
  }
  return lines;
}

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The file's first line, trimmed of blanks, as a number; NA unless it is
// all digits.
double read_number(const std::string& path) {
  const std::vector<std::string> lines = read_lines(path, 1);
  if (lines.size() != 1) return NA_REAL;
  const std::string& line = lines[0];
  const char* blank = " \t\r\n";
  const size_t first = line.find_first_not_of(blank);
  if (first == std::string::npos) return NA_REAL;
  const std::string value = line.substr(first, line.find_last_not_of(blank) - first + 1);
  return all_digits(value) ? std::stod(value) : NA_REAL;
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// "N:controllers:/path" whose comma-separated controllers include memory.
bool is_v1_memory_line(const std::string& line) {
  const size_t id_end = line.find(':');
  if (id_end == std::string::npos || !all_digits(line.substr(0, id_end))) return false;
  const size_t list_end = line.find(':', id_end + 1);
  if (list_end == std::string::npos) return false;
  const std::string list = line.substr(id_end + 1, list_end - id_end - 1);
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    if (list.substr(start, comma == std::string::npos ? std::string::npos : comma - start) == "memory") return true;
    if (comma == std::string::npos) return false;
    start = comma + 1;
  }
}

std::string without_leading_slash(const std::string& path) {
  return starts_with(path, "/") ? path.substr(1) : path;
}

double room(double limit, double used) {
  return std::max(0.0, limit - (ISNA(used) ? 0.0 : used));
}

double meminfo_available(const std::string& path) {
  int found = 0;
  std::string digits;
  for (const std::string& line : read_lines(path)) {
    if (!starts_with(line, "MemAvailable:")) continue;
    ++found;
    digits.clear();
    for (char c : line) if (c >= '0' && c <= '9') digits.push_back(c);
  }
  if (found != 1 || digits.empty()) return NA_REAL;
  return std::stod(digits) * 1024.0;
}

double cgroup_available(const std::string& root) {
  const std::vector<std::string> groups = read_lines(root + "/proc/self/cgroup");
  std::vector<const std::string*> v2, v1;
  for (const std::string& line : groups) {
    if (starts_with(line, "0::")) v2.push_back(&line);
    if (is_v1_memory_line(line)) v1.push_back(&line);
  }
  if (v2.size() == 1) {
    const std::string dir = root + "/sys/fs/cgroup/" + without_leading_slash(v2[0]->substr(3));
    const double limit = read_number(dir + "/memory.max");
    if (!ISNA(limit)) return room(limit, read_number(dir + "/memory.current"));
  }
  if (v1.size() == 1) {
    const std::string& line = *v1[0];
    const size_t second = line.find(':', line.find(':') + 1);
    const std::string dir = root + "/sys/fs/cgroup/memory/" + without_leading_slash(line.substr(second + 1));
    const double limit = read_number(dir + "/memory.limit_in_bytes");
    // v1 reports "no limit" as a number near 2^63.
    if (!ISNA(limit) && limit < std::ldexp(1.0, 60)) {
      return room(limit, read_number(dir + "/memory.usage_in_bytes"));
    }
  }
  return NA_REAL;
}

}  // namespace

//' The smaller of MemAvailable (root/proc/meminfo) and the room left in the
//' process's memory control group (v2, else v1), in bytes; NA when neither
//' is known
//' @noRd
// [[Rcpp::export(rng = false)]]
double ccf_available_memory_cpp(std::string root) {
  const double meminfo = meminfo_available(root + "/proc/meminfo");
  const double cgroup = cgroup_available(root);
  if (ISNA(meminfo)) return cgroup;
  if (ISNA(cgroup)) return meminfo;
  return std::min(meminfo, cgroup);
}
