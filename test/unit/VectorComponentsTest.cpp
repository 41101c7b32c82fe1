//===- VectorComponentsTest.cpp - Stores to one component of a vector -----===//
//
// componentStore writes `c[i].y += e` as a store of the whole float2 and
// storedComponent reads it back as the user wrote it; a literal that changes
// two components, or reads another vector's, is a store of a whole vector.
//
//===----------------------------------------------------------------------===//

#include "IR/VectorComponents.h"

#include "gtest/gtest.h"

using namespace gpumerge;

namespace {

Type float2Ty() {
  Type T = Type::scalar(ScalarKind::Float);
  T.VectorWidth = 2;
  return T;
}

ExprPtr element(const std::string &Array) {
  std::vector<ExprPtr> I;
  I.push_back(var("i"));
  return std::make_unique<ArrayRef>(Array, std::move(I), float2Ty());
}

ExprPtr component(ExprPtr Base, const std::string &Name) {
  return std::make_unique<MemberExpr>(std::move(Base), Name,
                                      Type::scalar(ScalarKind::Float));
}

TEST(VectorComponents, Names) {
  EXPECT_EQ(vectorComponentName(3, 4), "w");
  EXPECT_EQ(vectorComponentName(10, 16), "sa");
  EXPECT_EQ(vectorComponentIndex("y", 2), 1u);
  EXPECT_EQ(vectorComponentIndex("s3", 4), 3u);
  EXPECT_EQ(vectorComponentIndex("SB", 16), 11u);
  EXPECT_FALSE(vectorComponentIndex("z", 2)); // float2 has no z
  EXPECT_FALSE(vectorComponentIndex("xy", 4));
  EXPECT_FALSE(vectorComponentIndex("lo", 4));
}

TEST(VectorComponents, StoreReadsBackAsWritten) {
  StmtPtr S = componentStore(element("c"), 1, AssignOp::Add,
                             var("e", Type::scalar(ScalarKind::Float)));
  const auto &A = llvm::cast<AssignStmt>(*S);
  // KIR: c[i] = make_float2(c[i].x, c[i].y + e), a store of the element.
  ASSERT_TRUE(llvm::isa<ArrayRef>(*A.LHS));
  EXPECT_EQ(A.Op, AssignOp::Set);
  const auto &Whole = llvm::cast<CallExpr>(*A.RHS);
  EXPECT_EQ(Whole.Callee, VectorLiteralCallee);
  ASSERT_EQ(Whole.Args.size(), 2u);
  std::optional<StoredComponent> C = storedComponent(A);
  ASSERT_TRUE(C);
  EXPECT_EQ(C->Index, 1u);
  EXPECT_EQ(C->Op, AssignOp::Add);
  EXPECT_TRUE(exprEquals(*C->Value, *var("e")));
}

TEST(VectorComponents, AnIntegerValueIsConvertedToTheLane) {
  StmtPtr S = componentStore(element("c"), 0, AssignOp::Set, intLit(3));
  const auto &A = llvm::cast<AssignStmt>(*S);
  const auto &Whole = llvm::cast<CallExpr>(*A.RHS);
  EXPECT_TRUE(llvm::isa<CastExpr>(*Whole.Args[0]));
  std::optional<StoredComponent> C = storedComponent(A);
  ASSERT_TRUE(C);
  EXPECT_EQ(C->Op, AssignOp::Set);
  EXPECT_TRUE(llvm::isa<IntLit>(*C->Value)); // printed `c[i].x = 3;`
}

TEST(VectorComponents, WholeStoresAreNotComponentStores) {
  auto Literal = [](ExprPtr X, ExprPtr Y) {
    std::vector<ExprPtr> Args;
    Args.push_back(std::move(X));
    Args.push_back(std::move(Y));
    return std::make_unique<CallExpr>(VectorLiteralCallee, std::move(Args),
                                      float2Ty());
  };
  // c[i] = make_float2(a, b): two components change.
  AssignStmt Two(element("c"), AssignOp::Set, Literal(var("a"), var("b")));
  EXPECT_FALSE(storedComponent(Two));
  // c[i] = make_float2(d[i].x, b): x comes from another vector.
  AssignStmt Other(element("c"), AssignOp::Set,
                   Literal(component(element("d"), "x"), var("b")));
  EXPECT_FALSE(storedComponent(Other));
  // c[i] = make_float2(c[i].x, c[i].y): nothing changes, no store to print.
  AssignStmt None(
      element("c"), AssignOp::Set,
      Literal(component(element("c"), "x"), component(element("c"), "y")));
  EXPECT_FALSE(storedComponent(None));
  // c[i] = make_float2(c[i].x, b) is one.
  AssignStmt One(element("c"), AssignOp::Set,
                 Literal(component(element("c"), "x"), var("b")));
  ASSERT_TRUE(storedComponent(One));
  EXPECT_EQ(storedComponent(One)->Index, 1u);
}

} // namespace
