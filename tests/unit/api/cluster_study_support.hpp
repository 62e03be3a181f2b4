// Runs a JOBS document through `ctwin cluster`'s library call, for the cluster tests.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/studies/cluster_jobs.hpp"
#include "source_root.hpp"

namespace ctwin::api {

inline ClusterStudy run_cluster_document(const nlohmann::json& document) {
  ClusterQuery query;
  query.document = document;
  query.source = "jobs.json";
  query.dir = kRootDir;
  EvalContext context;
  return evaluate_cluster(query, context);
}

// The one-line error a bad document gives, or "no error".
inline std::string cluster_document_error(const nlohmann::json& document) {
  try {
    (void)run_cluster_document(document);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace ctwin::api
