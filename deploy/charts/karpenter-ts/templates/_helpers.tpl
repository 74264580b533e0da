{{- define "karpenter-ts.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "karpenter-ts.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "karpenter-ts.labels" -}}
{{ include "karpenter-ts.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "karpenter-ts.serviceAccountName" -}}
{{- default (include "karpenter-ts.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "karpenter-ts.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}
{{- end -}}

{{- define "karpenter-ts.validate" -}}
{{- if not (has .Values.provider (list "sim" "azure" "aws")) -}}
{{- fail (printf "provider must be sim, azure or aws, got %q" .Values.provider) -}}
{{- end -}}
{{- if and (ne .Values.provider "sim") (not .Values.clusterName) -}}
{{- fail (printf "clusterName is required for provider %s" .Values.provider) -}}
{{- end -}}
{{- end -}}
