#pragma once
// The columns every op table of the module has (a schedule's order, a simulation's timeline):
// kind (index into OP_KINDS), pipe, stage, micro-batch (-1 for syncs) and chunk, as numpy arrays.

#include "ir/op.h"

#include <pybind11/numpy.h>

namespace stagecraft::python {

class OpColumns {
  public:
    explicit OpColumns(pybind11::ssize_t n) : m_kind(n), m_pipe(n), m_stage(n), m_mb(n), m_chunk(n) {}

    void set(pybind11::ssize_t i, const Op& op) {
        m_kind.mutable_at(i) = std::uint8_t(op.kind);
        m_pipe.mutable_at(i) = op.pipe;
        m_stage.mutable_at(i) = op.stage;
        m_mb.mutable_at(i) = op.mb;
        m_chunk.mutable_at(i) = op.chunk;
    }

    /// Adds the columns to `table` under their names.
    void addTo(pybind11::dict& table) const {
        table["kind"] = m_kind;
        table["pipe"] = m_pipe;
        table["stage"] = m_stage;
        table["mb"] = m_mb;
        table["chunk"] = m_chunk;
    }

  private:
    pybind11::array_t<std::uint8_t> m_kind, m_pipe;
    pybind11::array_t<std::int32_t> m_stage, m_mb, m_chunk;
};

} // namespace stagecraft::python
