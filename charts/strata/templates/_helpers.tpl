{{/*
Helm renders the chart in tests too (hack/chart, helm.sh/helm/v3 as a
library), so templates may use any of Helm's functions.
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

{{/* The controller's ServiceAccount: the chart's, or an existing one. */}}
{{- define "strata.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "strata.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false: the chart binds the controller's ClusterRole and leader election Role to it" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* repository@digest when a digest pins the image, else repository:tag. */}}
{{- define "strata.image" -}}
{{- $repo := required "image.repository is required" .Values.image.repository -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repo .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/* The metrics port: metrics.port, else 8443 (HTTPS) or 8080 (HTTP). */}}
{{- define "strata.metricsPort" -}}
{{- if kindIs "invalid" .Values.metrics.port -}}
{{- ternary 8443 8080 .Values.metrics.secure -}}
{{- else -}}
{{- .Values.metrics.port -}}
{{- end -}}
{{- end -}}
