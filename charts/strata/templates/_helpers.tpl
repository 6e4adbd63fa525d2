{{/*
Templates use only text/template and the functions include, printf, trunc,
trimSuffix, contains, toYaml, nindent and quote, so that config/chart_test.go
can render the chart without Helm.
*/}}

{{/* The name of every object of the release. */}}
{{- define "strata.fullname" -}}
{{- if contains "strata" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-strata" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "strata.selectorLabels" -}}
app.kubernetes.io/name: strata
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: controller
{{- end -}}

{{- define "strata.labels" -}}
{{ include "strata.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}
