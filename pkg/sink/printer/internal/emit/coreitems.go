package emit

// emitterState is what an emitter's next write depends on.
type emitterState struct {
	column, indent                                    int
	whitespace, indention                             bool
	sequenceContext, mappingContext, simpleKeyContext bool
}

func (e *yamlEmitter) state() emitterState {
	return emitterState{e.column, e.indent, e.whitespace, e.indention, e.sequenceContext, e.mappingContext, e.simpleKeyContext}
}

func (e *yamlEmitter) setState(s emitterState) {
	e.column, e.indent, e.whitespace, e.indention = s.column, s.indent, s.whitespace, s.indention
	e.sequenceContext, e.mappingContext, e.simpleKeyContext = s.sequenceContext, s.mappingContext, s.simpleKeyContext
}
