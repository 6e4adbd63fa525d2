{{/*
strata.validate refuses combinations of values that render valid objects
but a broken install; values.schema.json checks each value on its own.
deployment.yaml includes it, so every render runs it.
*/}}
{{- define "strata.validate" -}}
{{- if and (gt (int .Values.replicas) 1) (not .Values.leaderElection) -}}
{{- fail (printf "replicas: %v needs leaderElection: true: without leader election every replica writes status and conditions, and they undo each other's writes" .Values.replicas) -}}
{{- end -}}
{{- $selector := include "strata.selectorLabels" . | fromYaml -}}
{{- range $key, $_ := .Values.podLabels -}}
{{- if hasKey $selector $key -}}
{{- fail (printf "podLabels: %s is a label of the Deployment's selector, which the chart sets; choose another key" $key) -}}
{{- end -}}
{{- end -}}
{{- with .Values.podDisruptionBudget -}}
{{- /* A number: float64 from a values file, int64 from --set. */ -}}
{{- if and .enabled (not (kindIs "invalid" .minAvailable)) (not (kindIs "string" .minAvailable)) (ge (int .minAvailable) (int $.Values.replicas)) -}}
{{- fail (printf "podDisruptionBudget.minAvailable: %v with replicas: %v would block every voluntary eviction (node drains); lower it or raise replicas" .minAvailable $.Values.replicas) -}}
{{- end -}}
{{- if and .enabled (kindIs "invalid" .minAvailable) (kindIs "invalid" .maxUnavailable) -}}
{{- fail "podDisruptionBudget: set minAvailable or maxUnavailable" -}}
{{- end -}}
{{- end -}}
{{- end -}}
