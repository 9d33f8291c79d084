console.log("codegen: pending");
