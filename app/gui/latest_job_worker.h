// One background job at a time, the newest request winning: a request replaces the one waiting
// and cancels the one running, and the UI polls take() every frame without waiting. The ground
// truth and the algorithm race run this way (truth.h, race.h). Exports keep every task in order
// instead, and have their own writer (export.h).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace rf::gui {

// Result has a std::string `error`; a job cancelled through its flag returns error "cancelled".
template <class Request, class Result>
class LatestJobWorker {
 public:
  // Runs on the worker thread; updates `progress` in [0, 1] and polls `cancel`.
  using Job = std::function<Result(const Request&, std::atomic<float>* progress,
                                   const std::atomic<bool>* cancel)>;

  explicit LatestJobWorker(Job job) : job_(std::move(job)), thread_([this] { loop(); }) {}

  ~LatestJobWorker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
      cancel_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

  LatestJobWorker(const LatestJobWorker&) = delete;
  LatestJobWorker& operator=(const LatestJobWorker&) = delete;

  void request(Request request) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_ = std::move(request);
      if (running_) cancel_ = true;
      progress_ = 0.0f;
    }
    wake_.notify_all();
  }

  // Drops the waiting request and cancels the running one (it reports nothing).
  void cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.reset();
    if (running_) cancel_ = true;
  }

  bool busy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_ || pending_.has_value();
  }

  float progress() const { return progress_.load(); }

  // The newest finished result, once.
  std::optional<Result> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<Result> out;
    out.swap(done_);
    return out;
  }

  // Blocks until nothing is waiting or running (--frames runs that capture the result).
  void wait_idle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return !running_ && !pending_; });
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return quit_ || pending_.has_value(); });
      if (quit_) return;
      Request job = std::move(*pending_);
      pending_.reset();
      running_ = true;
      cancel_ = false;
      lock.unlock();
      Result result = job_(job, &progress_, &cancel_);
      lock.lock();
      running_ = false;
      // A job cancelled for a newer request reports nothing; the newer one follows.
      if (result.error != "cancelled" || !pending_) done_ = std::move(result);
      if (!pending_) idle_.notify_all();
    }
  }

  Job job_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::optional<Request> pending_;
  std::optional<Result> done_;
  bool running_ = false, quit_ = false;
  std::atomic<float> progress_{0.0f};
  std::atomic<bool> cancel_{false};
  std::thread thread_;  // last: it starts once everything above exists
};

}  // namespace rf::gui
