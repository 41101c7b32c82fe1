//===- OpenCLEmitter.cpp - KIR as OpenCL C 1.2 ----------------------------===//
#include "CodeGen/OpenCLEmitter.h"
#include "CodeGen/Emitter.h"

namespace gpumerge {

std::unique_ptr<Printer> makeOpenCLEmitter(llvm::raw_ostream &OS) {
  return std::make_unique<OpenCLEmitter>(OS);
}

} // namespace gpumerge
