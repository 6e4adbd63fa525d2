package quickjson

import (
	corev1 "k8s.io/api/core/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// One defined type per kind of typed.Kinds, with the fields of its API
// type: easyjson generates the decoders of zz_generated.easyjson.go from
// these (hack/generate.sh), and Unmarshal converts an API object's
// pointer to its defined type's to reach them. A kind added to
// typed.Kinds needs its line here (TestEveryKindHasADecoder).

//easyjson:json
type namespace corev1.Namespace

//easyjson:json
type service corev1.Service

//easyjson:json
type gatewayClass gwv1.GatewayClass

//easyjson:json
type gateway gwv1.Gateway

//easyjson:json
type listenerSet gwv1.ListenerSet

//easyjson:json
type httpRoute gwv1.HTTPRoute

//easyjson:json
type grpcRoute gwv1.GRPCRoute

//easyjson:json
type tlsRoute gwv1.TLSRoute

//easyjson:json
type tcpRoute gwv1.TCPRoute

//easyjson:json
type udpRoute gwv1.UDPRoute

//easyjson:json
type referenceGrant gwv1b1.ReferenceGrant
