// diag_check.cpp: runs clang with the chad plugin on one test file and
// checks its diagnostics against markers in the file.
//
//   diag_check <clang> <libchad.so> <file.c>
//
// Markers, in comments (several on one line are allowed):
//   // expect-error: TEXT          an error on this line of this file whose
//                                  message contains TEXT
//   // expect-warning: TEXT        the same for a warning
//   // expect-global-error: TEXT   an error without a location (plugin args)
//   // expect-output: TEXT         TEXT appears anywhere in the output
//   // diag-args: ARGS             extra clang arguments (split at spaces)
//
// The test passes when clang did not crash, exits with 1 exactly when an
// error is expected (0 otherwise), every marker is matched, and no error or
// warning appears that no marker expects (errors in generated code count).
//
// Requires: a POSIX shell (popen). Guarantees: exit status 0 on pass, 1 on
// failure, with the command, clang's output and each problem on stdout.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {

struct Marker {
  std::string kind; // error, warning, global-error, output
  std::string text;
  int line;
  bool matched = false;
};

struct Diagnostic {
  std::string file; // empty for a diagnostic without a location
  int line = 0;
  std::string severity; // error, warning ("fatal error" counts as error)
  std::string message;
  std::string raw;
};

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Reads the markers and the extra arguments of the test file.
bool readMarkers(const std::string &path, std::vector<Marker> &markers,
                 std::vector<std::string> &args) {
  std::ifstream in(path);
  if (!in)
    return false;
  static const std::regex marker(
      "(expect-error|expect-warning|expect-global-error|expect-output|"
      "diag-args):([^/]*(/[^/][^/]*)*)");
  std::string text;
  for (int line = 1; std::getline(in, text); line++) {
    for (std::sregex_iterator it(text.begin(), text.end(), marker), end;
         it != end; ++it) {
      std::string kind = (*it)[1];
      std::string value = trim((*it)[2]);
      if (kind == "diag-args") {
        std::istringstream words(value);
        for (std::string w; words >> w;)
          args.push_back(w);
        continue;
      }
      markers.push_back({kind.substr(7), value, line});
    }
  }
  return true;
}

std::string shellQuote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `command`, returns its output (stdout and stderr) and exit status.
std::string run(const std::string &command, int &status) {
  std::string output;
  FILE *p = popen((command + " 2>&1").c_str(), "r");
  if (!p) {
    status = -1;
    return output;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    output.append(buf, n);
  int raw = pclose(p);
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return output;
}

std::vector<Diagnostic> parseDiagnostics(const std::string &output) {
  static const std::regex located(
      "^(.*):([0-9]+):[0-9]+: (error|warning|fatal error): (.*)$");
  static const std::regex global("^(error|warning|fatal error): (.*)$");
  std::vector<Diagnostic> out;
  std::istringstream lines(output);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    Diagnostic d;
    d.raw = line;
    if (std::regex_match(line, m, located)) {
      d.file = m[1];
      d.line = std::stoi(m[2]);
      d.severity = m[3];
      d.message = m[4];
    } else if (std::regex_match(line, m, global)) {
      d.severity = m[1];
      d.message = m[2];
    } else {
      continue;
    }
    if (d.severity == "fatal error")
      d.severity = "error";
    out.push_back(d);
  }
  return out;
}

bool matches(const Marker &mk, const Diagnostic &d, const std::string &file) {
  if (d.message.find(mk.text) == std::string::npos)
    return false;
  if (mk.kind == "global-error")
    return d.file.empty() && d.severity == "error";
  return d.file == file && d.line == mk.line && d.severity == mk.kind;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::cerr << "usage: diag_check <clang> <libchad.so> <file.c>\n";
    return 2;
  }
  std::string clang = argv[1], plugin = argv[2], file = argv[3];
  std::vector<Marker> markers;
  std::vector<std::string> args;
  if (!readMarkers(file, markers, args)) {
    std::cout << "cannot read " << file << "\n";
    return 1;
  }

  std::string command = shellQuote(clang) +
                        " -fsyntax-only -fplugin=" + shellQuote(plugin) +
                        " -fno-color-diagnostics -fno-caret-diagnostics";
  for (const std::string &a : args)
    command += " " + shellQuote(a);
  command += " " + shellQuote(file);
  int status = 0;
  std::string output = run(command, status);
  std::cout << "$ " << command << "\n"
            << output << "(exit status " << status << ")\n";

  std::vector<std::string> problems;
  if (output.find("PLEASE submit a bug report") != std::string::npos ||
      output.find("Stack dump:") != std::string::npos ||
      (status != 0 && status != 1))
    problems.push_back("clang crashed");

  bool errorExpected = false;
  for (const Marker &mk : markers)
    errorExpected =
        errorExpected || mk.kind == "error" || mk.kind == "global-error";
  if (errorExpected && status != 1)
    problems.push_back("the compile should fail with status 1");
  if (!errorExpected && status != 0)
    problems.push_back("the compile should succeed");

  std::vector<Diagnostic> diags = parseDiagnostics(output);
  std::vector<bool> explained(diags.size(), false);
  for (Marker &mk : markers) {
    if (mk.kind == "output") {
      mk.matched = output.find(mk.text) != std::string::npos;
    } else {
      for (size_t i = 0; i < diags.size(); i++)
        if (matches(mk, diags[i], file)) {
          mk.matched = true;
          explained[i] = true;
        }
    }
    if (!mk.matched)
      problems.push_back("line " + std::to_string(mk.line) + ": expected " +
                         mk.kind + " '" + mk.text + "' not seen");
  }
  for (size_t i = 0; i < diags.size(); i++)
    if (!explained[i])
      problems.push_back("unexpected: " + diags[i].raw);

  for (const std::string &p : problems)
    std::cout << "FAIL: " << p << "\n";
  if (problems.empty())
    std::cout << "PASS (" << markers.size() << " markers)\n";
  return problems.empty() ? 0 : 1;
}
