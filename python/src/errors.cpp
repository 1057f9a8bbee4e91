// Core's errors become Python exceptions that keep what a script needs to act on them: the
// stable id (docs/errors.md), the field of a ValidationError, and the source, line and column of
// a ParseError. The message is core's, naming the value and the rule.
#include "bindings.h"
#include "error.h"

namespace stagecraft::python {

namespace {

/// An instance of exception class `type` for `e`, with its id and message as attributes.
py::object exceptionFor(py::handle type, const Error& e) {
    py::object value = py::reinterpret_borrow<py::object>(type)("[" + e.id() + "] " + e.message());
    value.attr("id") = e.id();
    value.attr("message") = e.message();
    return value;
}

} // namespace

void bindErrors(py::module_& m) {
    static py::exception<Error> error(m, "Error");
    static py::exception<ParseError> parseError(m, "ParseError", error.ptr());
    static py::exception<ValidationError> validationError(m, "ValidationError", error.ptr());
    error.doc() = "Base of every error Stagecraft reports: .id is the stable error id (docs/errors.md), "
                  ".message the text naming the value and the rule.";
    parseError.doc() = "Malformed input text: .source, .line and .column (1-based, 0 when unknown).";
    validationError.doc() = "Well-formed input that breaks a rule: .field is the field or location.";
    // pybind11 calls a translator with the exception_ptr by value.
    py::register_exception_translator(
        [](std::exception_ptr thrown) { // NOLINT(performance-unnecessary-value-param)
            if (!thrown) return;
            try {
                std::rethrow_exception(thrown);
            } catch (const ParseError& e) {
                py::object value = exceptionFor(parseError, e);
                value.attr("source") = e.source();
                value.attr("line") = e.line();
                value.attr("column") = e.column();
                PyErr_SetObject(parseError.ptr(), value.ptr());
            } catch (const ValidationError& e) {
                py::object value = exceptionFor(validationError, e);
                value.attr("field") = e.field();
                PyErr_SetObject(validationError.ptr(), value.ptr());
            } catch (const Error& e) {
                PyErr_SetObject(error.ptr(), exceptionFor(error, e).ptr());
            }
        });
}

} // namespace stagecraft::python
