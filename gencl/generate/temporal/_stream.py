"""stub"""
def stream_program(form, geo):
    raise NotImplementedError
