// External programs (ffmpeg, ffprobe) run as child processes through posix_spawn: no shell, so file
// names are passed as they are, and no fork of a process that holds GL contexts and threads.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace rf::app::detail {

// The full path of `name` found in $PATH, or empty when it is not installed.
std::string find_program(const std::string& name);

// A running child whose stdout and stderr are pipes; stdin is /dev/null, or a pipe the parent
// writes (an encoder fed frames). The destructor kills (SIGKILL) and reaps a child still running,
// so no zombie outlives its owner.
class ChildProcess {
 public:
  enum class Stdin { Null, Pipe };
  // argv[0] must be a full path (find_program). Throws IoError when the program cannot start.
  explicit ChildProcess(const std::vector<std::string>& argv, Stdin in = Stdin::Null);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // The write end of the child's stdin (Stdin::Pipe), -1 otherwise or once closed.
  int stdin_fd() const { return in_; }
  // Closes stdin: the child reads end of file (an encoder then finishes its file).
  void close_stdin();
  int stdout_fd() const { return out_; }
  int stderr_fd() const { return err_; }
  pid_t pid() const { return pid_; }
  // Kills the child if it still runs and reaps it; returns the wait status (as waitpid's).
  int kill_and_wait();
  // Reaps the child after its pipes reached end of file; returns the wait status.
  int wait();

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  int err_ = -1;
  int status_ = 0;
};

// Runs a program to completion, collecting its stdout and stderr; kills it after `timeout_s`.
// Returns the exit code, or -1 when it was killed or died by a signal.
int run_program(const std::vector<std::string>& argv, std::string& out, std::string& err,
                double timeout_s);

}  // namespace rf::app::detail
