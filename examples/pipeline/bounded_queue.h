// SPDX-License-Identifier: MIT
// bounded_queue.h: a fixed-capacity FIFO between the demo's threads.
//
// Storage is allocated once in the constructor, like a FreeRTOS queue
// created at start-up: the 1 kHz loop never allocates. try_push never
// blocks, as xQueueSendFromISR must not; a full queue is the caller's
// problem (the timer drops the sample and says so in the trace).
#ifndef PIPELINE_BOUNDED_QUEUE_H
#define PIPELINE_BOUNDED_QUEUE_H

#include <stddef.h>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <vector>

template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : slots_(capacity) {}
  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;

  // False when full or closed.
  bool try_push(const T& item) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_ || size_ == slots_.size()) return false;
      Put(item);
    }
    not_empty_.notify_one();
    return true;
  }

  // Waits for room; false once closed.
  bool push(const T& item) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      not_full_.wait(lock, [&] { return closed_ || size_ < slots_.size(); });
      if (closed_) return false;
      Put(item);
    }
    not_empty_.notify_one();
    return true;
  }

  // Waits for an item; nullopt once closed and drained, so consumers finish
  // what was queued before the shutdown (every queued flow gets its end).
  std::optional<T> pop() {
    std::optional<T> item;
    {
      std::unique_lock<std::mutex> lock(mu_);
      not_empty_.wait(lock, [&] { return closed_ || size_ > 0; });
      if (size_ == 0) return std::nullopt;
      item = slots_[head_];
      head_ = (head_ + 1) % slots_.size();
      --size_;
    }
    not_full_.notify_one();
    return item;
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return size_;
  }
  size_t capacity() const { return slots_.size(); }

  void close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  void Put(const T& item) {
    slots_[(head_ + size_) % slots_.size()] = item;
    ++size_;
  }

  mutable std::mutex mu_;
  std::condition_variable not_empty_, not_full_;
  std::vector<T> slots_;
  size_t head_ = 0, size_ = 0;
  bool closed_ = false;
};

#endif  // PIPELINE_BOUNDED_QUEUE_H
