package apis

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// WithoutProtobuf returns a NegotiatedSerializer that offers codecs' serializers except
// protobuf: JSON, YAML and CBOR as codecs has them. An API group whose Go types have no
// protobuf code (ours, learn.kubewalk.io) is installed with it, so that content negotiation
// never picks protobuf for it: a client that accepts protobuf or JSON, as the server's own
// loopback clients do, gets JSON; one that accepts protobuf only gets 406 Not Acceptable, and
// a protobuf body 415 Unsupported Media Type. kube-apiserver serves custom resources the same
// way, for the same reason.
func WithoutProtobuf(codecs serializer.CodecFactory) runtime.NegotiatedSerializer {
	return withoutProtobuf{codecs}
}

type withoutProtobuf struct {
	serializer.CodecFactory
}

// SupportedMediaTypes returns the codec factory's serializers but protobuf's.
func (f withoutProtobuf) SupportedMediaTypes() []runtime.SerializerInfo {
	var out []runtime.SerializerInfo
	for _, info := range f.CodecFactory.SupportedMediaTypes() {
		if info.MediaType != runtime.ContentTypeProtobuf {
			out = append(out, info)
		}
	}
	return out
}
