// The studio's export thread (app/gui/export.h): tasks run in the order given, a task that throws
// is reported with its message, and nothing asked for is dropped at exit.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "app/gui/export.h"

using rf::gui::FileWriter;

TEST_CASE("export thread: tasks in order, failures named, wait_idle waits for all") {
  FileWriter w;
  std::vector<int> order;  // written by the writer's thread only, read after wait_idle
  for (int i = 0; i < 5; ++i)
    w.add("task " + std::to_string(i), [&order, i] {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (i == 2) throw std::runtime_error("disk full");
      order.push_back(i);
    });
  w.wait_idle();
  CHECK_FALSE(w.busy());
  CHECK(order == std::vector<int>{0, 1, 3, 4});
  const std::vector<FileWriter::Done> done = w.take_done();
  REQUIRE(done.size() == 5);
  for (int i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(done[std::size_t(i)].name == "task " + std::to_string(i));
    CHECK(done[std::size_t(i)].error == (i == 2 ? "disk full" : ""));
  }
  CHECK(w.take_done().empty());
}

TEST_CASE("export thread: the tasks queued when it is destroyed still run") {
  std::atomic<int> ran{0};
  {
    FileWriter w;
    for (int i = 0; i < 3; ++i)
      w.add("slow", [&ran] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ++ran;
      });
  }
  CHECK(ran == 3);
}
